// Command sardonics samples binary-valued systems at equilibrium with the
// SARDONICS algorithm; see README.md.
package main

import (
	"fmt"
	"os"

	"sardonics/cli"
)

func main() {
	err := cli.Run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sardonics: %v\n", err)
	}
	os.Exit(cli.ExitCode(err))
}
