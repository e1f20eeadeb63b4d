package api

// Truncate returns s cut to its first n bytes followed by more, or s itself when it is no
// longer than n: what a bounded record (an audit detail, an Event's message) keeps of a
// longer text.
func Truncate(s string, n int, more string) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + more
}
