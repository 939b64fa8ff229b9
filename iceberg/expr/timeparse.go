package expr

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// instant is a parsed date or timestamp: whole seconds from the epoch (UTC)
// and nanoseconds within the second.
type instant struct {
	sec, nsec int64
	hasZone   bool
}

var dateTimePattern = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})` +
	`(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?` +
	`(?:\s*([Zz]|[+-]\d{2}(?::?\d{2})?))?)?$`)

var timePattern = regexp.MustCompile(`^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$`)

// parseDateTime reads an ISO-8601 date ("2020-01-01") or date-time with a
// 'T' or a space, optional seconds and up to nine fractional digits, and an
// optional zone (Z, +01, +0100, +01:00). Without a zone the wall clock is
// taken as UTC.
func parseDateTime(s string) (instant, error) {
	m := dateTimePattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return instant{}, fmt.Errorf("%q is not an ISO-8601 date or timestamp", clip(s))
	}
	num := func(i int) int {
		n, _ := strconv.Atoi(m[i])
		return n
	}
	y, mo, d := num(1), num(2), num(3)
	hh, mm, ss := num(4), num(5), num(6)
	if mo < 1 || mo > 12 || hh > 23 || mm > 59 || ss > 59 {
		return instant{}, fmt.Errorf("%q is out of range", clip(s))
	}
	t := time.Date(y, time.Month(mo), d, hh, mm, ss, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != mo {
		return instant{}, fmt.Errorf("%q is not a valid date", clip(s))
	}
	nsec := fraction(m[7])
	var off int64
	if z := m[8]; z != "" && z != "Z" && z != "z" {
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, _ := strconv.Atoi(digits[:2])
		mins := 0
		if len(digits) == 4 {
			mins, _ = strconv.Atoi(digits[2:])
		}
		if h > 18 || mins > 59 {
			return instant{}, fmt.Errorf("%q has an invalid zone offset", clip(s))
		}
		off = int64(h*3600 + mins*60)
		if z[0] == '-' {
			off = -off
		}
	}
	return instant{sec: t.Unix() - off, nsec: nsec, hasZone: m[8] != ""}, nil
}

// parseTimeOfDay reads "HH:MM[:SS[.fffffffff]]" as nanoseconds from midnight.
func parseTimeOfDay(s string) (int64, error) {
	m := timePattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not an ISO-8601 time", clip(s))
	}
	hh, _ := strconv.Atoi(m[1])
	mm, _ := strconv.Atoi(m[2])
	ss, _ := strconv.Atoi(m[3])
	if hh > 23 || mm > 59 || ss > 59 {
		return 0, fmt.Errorf("%q is out of range", clip(s))
	}
	return int64(hh*3600+mm*60+ss)*1e9 + fraction(m[4]), nil
}

// fraction turns up to nine fractional digits into nanoseconds.
func fraction(digits string) int64 {
	if digits == "" {
		return 0
	}
	n, _ := strconv.ParseInt(digits+strings.Repeat("0", 9-len(digits)), 10, 64)
	return n
}

// micros returns the instant in microseconds, floored, and whether that is exact.
func (in instant) micros() (int64, bool) {
	return in.sec*1_000_000 + in.nsec/1000, in.nsec%1000 == 0
}

// nanos returns the instant in nanoseconds; range is -1 or +1 when the
// instant lies outside what an int64 of nanoseconds holds (1677 to 2262).
func (in instant) nanos() (v int64, rng int) {
	const lim = math.MaxInt64 / 1_000_000_000
	switch {
	case in.sec > lim || (in.sec == lim && in.nsec > math.MaxInt64%1_000_000_000):
		return 0, 1
	case in.sec < -lim-1 || (in.sec == -lim-1 && in.nsec < 1_000_000_000+math.MinInt64%1_000_000_000):
		return 0, -1
	}
	return in.sec*1_000_000_000 + in.nsec, 0
}

// days returns the instant's date in days from the epoch, floored, and
// whether the instant is exactly midnight.
func (in instant) days() (int64, bool) {
	return floorDiv(in.sec, 86400), in.sec%86400 == 0 && in.nsec == 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
