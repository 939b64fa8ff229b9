// Package suggest finds the names nearest to a misspelled one, for error
// messages that say what the caller may have meant.
package suggest

import (
	"sort"
	"strings"
)

// Nearest returns at most n of candidates ordered by their edit distance to
// name, ignoring case, nearest first; ties keep alphabetical order. The
// candidates slice is not modified.
func Nearest(name string, candidates []string, n int) []string {
	lower := strings.ToLower(name)
	type scored struct {
		name string
		dist int
	}
	all := make([]scored, len(candidates))
	for i, c := range candidates {
		all[i] = scored{c, Distance(lower, strings.ToLower(c))}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].dist != all[j].dist {
			return all[i].dist < all[j].dist
		}
		return strings.ToLower(all[i].name) < strings.ToLower(all[j].name)
	})
	if len(all) > n {
		all = all[:max(n, 0)]
	}
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.name
	}
	return out
}

// Distance is the Levenshtein distance between two strings, by runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
