// Command restyplane is the control plane for OpenResty: `restyplane serve` runs the REST
// API, the web UI and the applier; `restyplane agent` runs a data plane; `restyplane
// migrate` reports on a cluster's Ingresses before they move; `restyplane version` prints
// the build.
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

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `restyplane is a control plane for OpenResty.

Usage:
  restyplane serve [flags]   run the control plane: the API, the web UI, the feed and the
                             applier of its own OpenResty (serve -h for flags)
  restyplane agent [flags]   run a data plane: follow a control plane's feed and apply it to
                             this machine's OpenResty (agent -h for flags)
  restyplane migrate [flags] print what restyplane would do with every Ingress of a
                             cluster, of every class, if they moved over; writes nothing
                             (migrate -h for flags)
  restyplane version         print the version
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "restyplane:", err)
		os.Exit(1)
	}
}

// run dispatches a subcommand. It takes its context, arguments and outputs as parameters
// so that a test can run the command in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("a subcommand is required")
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stdout, stderr)
	case "agent":
		err = agent(ctx, args[1:], stdout, stderr)
	case "migrate":
		err = migrate(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "restyplane", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown subcommand %q", args[0])
	}
	if errors.Is(err, flag.ErrHelp) {
		return nil // the flags were printed as asked: not a failure
	}
	return err
}
