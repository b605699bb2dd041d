package tune

// The tests run samplers by name.
import _ "sardonics/samplers"
