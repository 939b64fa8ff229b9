package restcatalog

import (
	"encoding/base64"
	"sort"
	"strconv"
)

// maxPageSize bounds a page however large a pageSize the client asks for;
// the client follows next-page-token for the rest.
const maxPageSize = 1000

// page returns the page of items (sorted by key) that the request's
// pageToken and pageSize select, and the token of the next page, nil on
// the last. A token is the key of the page's last item, so a listing
// stays in order when items come and go between pages. Without pageSize
// every item after the token is one page, as the API allows.
func page[T any](req *request, items []T, key func(T) string) ([]T, *string, error) {
	q := req.query
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	if tok := q.Get("pageToken"); tok != "" {
		after, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return nil, nil, badRequest("pageToken is not one this server issued")
		}
		i := sort.Search(len(items), func(i int) bool { return key(items[i]) > string(after) })
		items = items[i:]
	}
	size := -1
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, nil, badRequest("pageSize %q is not a positive integer", abbreviate(v))
		}
		size = min(n, maxPageSize)
	}
	if size < 0 || len(items) <= size {
		return items, nil, nil
	}
	items = items[:size]
	next := base64.RawURLEncoding.EncodeToString([]byte(key(items[size-1])))
	return items, &next, nil
}
