package conformance

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// The Pods' programs write their output as a container runtime keeps a container's log
// (the CRI format: "<RFC 3339 time> <stream> F <line>"), so that the log endpoint can
// answer the API server's sinceTime, as the suite's mirror tests ask.

// criLog is a Pod's log file, written by one writer per stream.
type criLog struct {
	mu sync.Mutex
	f  *os.File
}

// criStream is one stream (stdout or stderr) of a criLog: it writes whole lines, each
// with the time it was completed.
type criStream struct {
	log    *criLog
	stream string
	part   []byte
}

// Write writes the complete lines of p, keeping a partial last line for the next Write.
func (s *criStream) Write(p []byte) (int, error) {
	s.part = append(s.part, p...)
	for {
		i := bytes.IndexByte(s.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := s.part[:i]
		s.log.mu.Lock()
		_, err := io.WriteString(s.log.f, time.Now().UTC().Format(time.RFC3339Nano)+" "+s.stream+" F "+string(line)+"\n")
		s.log.mu.Unlock()
		s.part = s.part[i+1:]
		if err != nil {
			return len(p), err
		}
	}
}

// logLine is one line of a CRI log.
type logLine struct {
	at   time.Time
	text string
}

// readCRILog returns the lines of the log written at since or later (all when since is
// zero), at most the last tail of them when tail > 0.
func readCRILog(path string, since time.Time, tail int) ([]logLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		ts, rest, ok := strings.Cut(sc.Text(), " ")
		_, text, ok2 := strings.Cut(rest, " F ")
		at, err := time.Parse(time.RFC3339Nano, ts)
		if !ok || !ok2 || err != nil || at.Before(since) {
			continue
		}
		out = append(out, logLine{at: at, text: text})
	}
	if tail > 0 && len(out) > tail {
		out = out[len(out)-tail:]
	}
	return out, sc.Err()
}
