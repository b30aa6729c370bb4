// Package csvsafe protects CSV cells from being read as formulas by
// spreadsheet programs (CSV or formula injection), as the OWASP page "CSV
// Injection" recommends: a cell that begins with =, +, -, @, a tab or a
// carriage return gets a leading single quote, which spreadsheets take as
// "this is text" and do not show.
//
// Escape only text cells: a number such as "-0.5" written by the program
// itself must stay a number.
package csvsafe

// triggers are the first characters OWASP lists as starting a formula.
func trigger(c byte) bool {
	switch c {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// quoted reports whether s is some single quotes followed by a trigger
// character (n ≥ 0 quotes).
func quoted(s string) bool {
	i := 0
	for i < len(s) && s[i] == '\'' {
		i++
	}
	return i < len(s) && trigger(s[i])
}

// Escape returns s with a single quote in front when it begins with =, +,
// -, @, tab or carriage return, or with single quotes followed by one of
// them (so that Unescape can tell an escaped cell from one that began
// with a quote); otherwise s itself. Escape is one-to-one.
func Escape(s string) string {
	if quoted(s) {
		return "'" + s
	}
	return s
}

// Unescape undoes Escape: Unescape(Escape(s)) == s for every s.
func Unescape(s string) string {
	if len(s) > 1 && s[0] == '\'' && quoted(s[1:]) {
		return s[1:]
	}
	return s
}

// Row escapes the cells of row whose column is text (text[i] true) in
// place and returns row. Columns beyond text are escaped too.
func Row(row []string, text []bool) []string {
	for i, c := range row {
		if i >= len(text) || text[i] {
			row[i] = Escape(c)
		}
	}
	return row
}
