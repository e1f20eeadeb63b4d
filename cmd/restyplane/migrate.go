package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
)

// migrateConfig is the flags of `restyplane migrate`.
type migrateConfig struct {
	kubeconfig    string
	controller    string
	allowExternal bool
	// defaultBackend is namespace/service:port, "" for none.
	defaultBackend string
	output         string
	timeout        time.Duration
}

func (c *migrateConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", env("RESTYPLANE_KUBECONFIG", ""),
		"kubeconfig of the cluster whose Ingresses to evaluate; in a pod the in-cluster config is used (env RESTYPLANE_KUBECONFIG)")
	fs.StringVar(&c.controller, "ingress-controller", env("RESTYPLANE_INGRESS_CONTROLLER", defaultController),
		"IngressClass controller name restyplane answers to, which says which Ingresses it serves already (env RESTYPLANE_INGRESS_CONTROLLER)")
	fs.BoolVar(&c.allowExternal, "allow-external-name", env("RESTYPLANE_ALLOW_EXTERNAL_NAME", "") == "true",
		"evaluate as a restyplane that routes to ExternalName Services (env RESTYPLANE_ALLOW_EXTERNAL_NAME=true)")
	fs.StringVar(&c.defaultBackend, "default-backend", env("RESTYPLANE_DEFAULT_BACKEND", ""),
		"evaluate as a restyplane whose default backend is this namespace/service:port, as serve's flag (env RESTYPLANE_DEFAULT_BACKEND)")
	fs.StringVar(&c.output, "o", "table", "output: table or json")
	fs.DurationVar(&c.timeout, "timeout", time.Minute, "how long to wait for the cluster's objects")
}

// migration is what `restyplane migrate -o json` prints.
type migration struct {
	Ingresses []api.IngressVerdict `json:"ingresses"`
	Counts    migrationCounts      `json:"counts"`
}

// migrationCounts counts the Ingresses by verdict.
type migrationCounts struct {
	Served     int `json:"served"`
	Translated int `json:"translated"`
	Refused    int `json:"refused"`
}

// migrate prints, without writing anything anywhere, what restyplane would do with every
// Ingress of a cluster, of every class, if they all moved to its class.
func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c migrateConfig
	fs := flag.NewFlagSet("restyplane migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("migrate takes no arguments, got %q", fs.Args())
	}
	if c.output != "table" && c.output != "json" {
		return fmt.Errorf("-o must be table or json, got %q", c.output)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout,
		fmt.Errorf("the cluster's Ingresses, IngressClasses, Services, EndpointSlices and Secrets were not all listed within %s: can this kubeconfig list them in every namespace?", c.timeout))
	defer cancel()
	v, err := evaluate(ctx, c)
	if err != nil {
		return err
	}
	m := migration{Ingresses: v.Ingresses}
	for _, ing := range v.Ingresses {
		switch ing.Verdict {
		case api.VerdictServed:
			m.Counts.Served++
		case api.VerdictTranslated:
			m.Counts.Translated++
		default:
			m.Counts.Refused++
		}
	}
	if c.output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}
	return writeMigrationTable(stdout, m)
}

// writeMigrationTable writes one line per Ingress, under it one line per problem (its
// reason) and per annotation (its verdict), and the counts last.
func writeMigrationTable(out io.Writer, m migration) error {
	type line struct{ ingress, class, verdict string }
	lines := []line{{"INGRESS", "CLASS", "VERDICT"}}
	detail := 0
	for _, ing := range m.Ingresses {
		class := ing.Class
		if class == "" {
			class = "-"
		}
		if ing.Ours {
			class += " (restyplane's)"
		}
		lines = append(lines, line{ing.Namespace + "/" + ing.Name, class, ing.Verdict})
		for _, p := range ing.Problems {
			detail = max(detail, len(p.Reason))
		}
		for _, a := range ing.Annotations {
			detail = max(detail, len(a.Verdict))
		}
	}
	wi, wc := 0, 0
	for _, l := range lines {
		wi, wc = max(wi, len(l.ingress)), max(wc, len(l.class))
	}
	b := &strings.Builder{}
	fmt.Fprintf(b, "%-*s  %-*s  %s\n", wi, lines[0].ingress, wc, lines[0].class, lines[0].verdict)
	for i, ing := range m.Ingresses {
		l := lines[i+1]
		fmt.Fprintf(b, "%-*s  %-*s  %s\n", wi, l.ingress, wc, l.class, l.verdict)
		for _, p := range ing.Problems {
			fmt.Fprintf(b, "    %-*s  %s\n", detail, p.Reason, oneLine(p.Message, 200))
		}
		for _, a := range ing.Annotations {
			fmt.Fprintf(b, "    %-*s  %s: %s", detail, a.Verdict, a.Name, oneLine(a.Value, 60))
			if a.Why != "" {
				fmt.Fprintf(b, " (%s)", oneLine(a.Why, 160))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(b, "\n%d Ingresses: %d served, %d translated, %d refused\n", len(m.Ingresses),
		m.Counts.Served, m.Counts.Translated, m.Counts.Refused)
	_, err := io.WriteString(out, b.String())
	return err
}

// oneLine folds s's whitespace, a snippet's lines among it, into single spaces and cuts it
// to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
