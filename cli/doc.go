// Package cli is the sardonics command line: one Command per subcommand,
// each with its own flag set and help. Run is all of main; it never calls
// os.Exit, so the CLI is tested in-process. Errors that are the user's
// (bad flags, bad input files) are marked so main exits with status 2.
package cli
