package outline

// maxChapter bounds chapter numbers read from headings, so a runaway
// numeral can never overflow or name an absurd chapter.
const maxChapter = 999999

var cnDigits = map[rune]int{
	'零': 0, '〇': 0, '○': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4,
	'五': 5, '六': 6, '七': 7, '八': 8, '九': 9,
}

var cnUnits = map[rune]int{'十': 10, '百': 100, '千': 1000}

// ParseNumber reads a chapter number: ASCII or full-width digits (any
// zero padding), or Chinese numerals in positional form (十二, 一百零三,
// 两百, 一千零五, 一万零一) or digit-by-digit form (一二〇). It reports
// false for anything else, zero, or a value above MaxChapter.
func ParseNumber(s string) (int, bool) {
	if s == "" || len(s) > 64 {
		return 0, false
	}
	rs := []rune(s)
	if n, ok := parseDigits(rs); ok {
		return n, n >= 1 && n <= maxChapter
	}
	n, ok := parseChinese(rs)
	return n, ok && n >= 1 && n <= maxChapter
}

func parseDigits(rs []rune) (int, bool) {
	n := 0
	for _, r := range rs {
		var d int
		switch {
		case r >= '0' && r <= '9':
			d = int(r - '0')
		case r >= '０' && r <= '９':
			d = int(r - '０')
		default:
			return 0, false
		}
		n = n*10 + d
		if n > maxChapter {
			return n, true // caller rejects; stop before overflow
		}
	}
	return n, true
}

func parseChinese(rs []rune) (int, bool) {
	hasUnit := false
	for _, r := range rs {
		if _, ok := cnDigits[r]; ok {
			continue
		}
		if _, ok := cnUnits[r]; ok || r == '万' {
			hasUnit = true
			continue
		}
		return 0, false
	}
	if !hasUnit {
		// Digit-by-digit form such as 一二〇; a lone 零 is zero and rejected.
		n := 0
		for _, r := range rs {
			n = n*10 + cnDigits[r]
			if n > maxChapter {
				return n, true
			}
		}
		return n, true
	}
	// Split on 万: at most one, with a non-empty part before it.
	for i, r := range rs {
		if r != '万' {
			continue
		}
		hi, ok := parseSection(rs[:i], true)
		if !ok || hi == 0 {
			return 0, false
		}
		rest := rs[i+1:]
		if len(rest) == 0 {
			return hi * 10000, true
		}
		zero := false
		if cnDigits[rest[0]] == 0 && isDigit(rest[0]) {
			zero, rest = true, rest[1:]
			if len(rest) == 0 {
				return 0, false
			}
		}
		for _, r := range rest {
			if r == '万' {
				return 0, false
			}
		}
		lo, ok := parseSection(rest, zero)
		if !ok || lo == 0 {
			return 0, false
		}
		if !zero && lo < 1000 {
			// 一万一 (colloquial 11000) or 一万十 are ambiguous without 零
			// or a 千 digit; 一万一千 is fine, 一万零一 is fine.
			if !isAbbrev(rest) {
				return 0, false
			}
			lo *= 1000
		}
		return hi*10000 + lo, true
	}
	return parseSection(rs, true)
}

func isDigit(r rune) bool { _, ok := cnDigits[r]; return ok }

// isAbbrev reports a single digit, as in 一万一 (= 11000).
func isAbbrev(rs []rune) bool { return len(rs) == 1 && isDigit(rs[0]) && cnDigits[rs[0]] != 0 }

// parseSection reads a value below 10000 in positional form. leadTen
// allows a bare leading 十 (十二 = 12); it is false after a 零.
func parseSection(rs []rune, leadTen bool) (int, bool) {
	if len(rs) == 0 {
		return 0, false
	}
	total := 0
	lastUnit := 10000 // units must strictly decrease
	digit := -1       // pending digit, -1 none
	zero := false     // a 零 since the last unit
	for i, r := range rs {
		if u, ok := cnUnits[r]; ok {
			if u >= lastUnit {
				return 0, false
			}
			switch {
			case digit > 0:
				total += digit * u
			case digit == -1 && u == 10 && ((i == 0 && leadTen) || zero):
				total += 10 // 十二, 一千零十
			default:
				return 0, false // 零十, 百 without a digit, …
			}
			lastUnit, digit, zero = u, -1, false
			continue
		}
		d := cnDigits[r]
		if digit != -1 {
			return 0, false // two digits in a row
		}
		if d == 0 {
			if zero || i == 0 || i == len(rs)-1 {
				return 0, false
			}
			zero = true
			continue
		}
		digit = d
	}
	if digit > 0 {
		switch {
		case lastUnit == 10000 || zero || lastUnit == 10:
			total += digit // 三, 一百零三, 二十三
		default:
			total += digit * lastUnit / 10 // colloquial 一百一 = 110, 两千五 = 2500
		}
	}
	return total, true
}
