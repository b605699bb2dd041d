package bench

// The tests run samplers by name.
import _ "sardonics/samplers"
