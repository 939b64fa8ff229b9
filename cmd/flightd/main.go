// Command flightd serves Apache Iceberg tables over Arrow Flight.
//
// Usage:
//
//	flightd serve   --warehouse DIR [--listen HOST:PORT] [--ticket-key-file FILE]
//	flightd plan    --warehouse DIR TABLE [--snapshot-id N] [--columns a,b]
//	flightd inspect FILE
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `flightd serves Apache Iceberg tables over Arrow Flight.

Commands:
  serve     serve a warehouse of tables over Arrow Flight
  plan      print the scan plan of a table as JSON, without a server
  inspect   print a metadata JSON, manifest list or manifest as JSON lines

Run "flightd COMMAND -h" for a command's flags, "flightd --version" for the version.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit code: 0 on
// success, 1 when the command failed, 2 for bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serveCmd(ctx, args[1:], stdout, stderr)
	case "plan":
		err = planCmd(ctx, args[1:], stdout, stderr)
	case "inspect":
		err = inspectCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	default:
		fmt.Fprintf(stderr, "flightd: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0 // asked for help, which the flag set printed
	}
	if ue, ok := err.(usageError); ok {
		fmt.Fprintf(stderr, "flightd %s: %s\n", args[0], ue.msg)
		return 2
	}
	fmt.Fprintf(stderr, "flightd %s: %v\n", args[0], err)
	return 1
}

// usageError is a command line mistake: exit code 2.
type usageError struct{ msg string }

// flagError turns a flag parsing error into a usageError, but for a request
// for help, which run answers with exit code 0.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError{err.Error()}
}

func (e usageError) Error() string { return e.msg }
