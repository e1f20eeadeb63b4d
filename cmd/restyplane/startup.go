package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// command is the configuration of serve or agent, as startup needs it.
type command interface {
	flags(fs *flag.FlagSet)
	// check refuses flags that do not go together, before anything starts.
	check() error
	// nginxBeside says whether an nginx runs on this machine beside restyplane.
	nginxBeside() bool
	// logging returns the --log-level and --log-format given.
	logging() (level, format string)
}

// startup is what serve and agent do first, in the same order: parse and check the flags
// (neither takes arguments), leave the cores to nginx when one runs beside, and make the
// logger and the metrics registry, with the Go runtime's and the process's collectors.
func startup(name string, c command, args []string, stderr io.Writer) (*slog.Logger, *prometheus.Registry, error) {
	fs := flag.NewFlagSet("restyplane "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.flags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, fmt.Errorf("%s takes no arguments, got %q", name, fs.Args())
	}
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	if c.nginxBeside() {
		leaveCoresToNginx()
	}
	level, format := c.logging()
	log, err := newLogger(stderr, level, format)
	if err != nil {
		return nil, nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return log, reg, nil
}
