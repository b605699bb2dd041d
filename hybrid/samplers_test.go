package hybrid_test

// The tests run samplers by name.
import _ "sardonics/samplers"
