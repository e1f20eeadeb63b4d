package reconciler

import (
	"sort"
)

// An annotation under ingress-nginx's prefix that annotationTable does not know is not
// ingress-nginx's: the table holds every annotation ingress-nginx ever read (a test keeps
// it so against ingress-nginx's final list), and ingress-nginx, which is retired, will not
// add one. ingress-nginx ignored such a name, typos included (server-snippets,
// tls-passthrough), so the Ingress never had what it says: the Ingress is served as it
// was, the annotation reported ignored, and a Warning Event names it and the annotation
// that was probably meant. The name never changes how the others are read: a protection
// another annotation asks for is enforced, or refuses the Ingress, as without it.

// whyNotIngressNginxText is the verdict's reason for an unknown ingress-nginx annotation.
const whyNotIngressNginxText = "not an ingress-nginx annotation (ingress-nginx ignores it too)"

// whyNotIngressNginx is the reason for an unknown name, with the known name it is
// closest to when it looks like a typo of one.
func whyNotIngressNginx(name string) string {
	if meant := closestAnnotation(name); meant != "" {
		return whyNotIngressNginxText + "; did you mean " + meant + "? As written it asked ingress-nginx for nothing, and asks restyplane for nothing"
	}
	return whyNotIngressNginxText
}

// isUnknownAnnotation says whether an annotation name under ingress-nginx's prefix is not
// one of ingress-nginx's.
func isUnknownAnnotation(name string) bool {
	_, ok := annotationTable[name]
	return !ok
}

// closestAnnotation is the known annotation a name is a likely typo of: the nearest by
// edit distance, within 2 edits, or 3 for names of 12 characters or more; "" if none.
func closestAnnotation(name string) string {
	limit := 2
	if len(name) >= 12 {
		limit = 3
	}
	names := make([]string, 0, len(annotationTable))
	for n := range annotationTable {
		names = append(names, n)
	}
	sort.Strings(names) // the first of equally near names, every time
	best, bestD := "", limit+1
	for _, n := range names {
		if d := editDistance(name, n, limit); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit+1 when it is larger.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > limit {
		return limit + 1
	}
	return prev[len(b)]
}
