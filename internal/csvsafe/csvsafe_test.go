package csvsafe

import (
	"fmt"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// The finding's participant-supplied ids (issue 15, finding 11).
		{"-2-3", "'-2-3"}, {"@A1:A9", "'@A1:A9"},
		// OWASP's list: = + - @ tab CR.
		{"=1+2", "'=1+2"}, {"+1", "'+1"}, {"\tx", "'\tx"}, {"\rx", "'\rx"},
		{"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		// A quote before a trigger gets one more, so Unescape is exact.
		{"'=x", "''=x"}, {"''-", "'''-"},
		// Everything else is left alone.
		{"", ""}, {"car", "car"}, {"'car", "'car"}, {"'", "'"}, {"a=b", "a=b"}, {" =x", " =x"}, {"0.5", "0.5"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Unescape(Escape(tc.in)); got != tc.in {
			t.Errorf("Unescape(Escape(%q)) = %q", tc.in, got)
		}
	}
}

func TestRow(t *testing.T) {
	row := []string{"-0.5", "-2-3", "=x", "extra=", "@y"}
	Row(row, []bool{false, true, false, true})
	want := []string{"-0.5", "'-2-3", "=x", "extra=", "'@y"}
	if fmt.Sprint(row) != fmt.Sprint(want) {
		t.Errorf("Row = %q, want %q", row, want)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "=", "'=", "''+x", "-0.5", "car", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if Unescape(e) != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, Unescape(e))
		}
		if e != "" && trigger(e[0]) {
			t.Fatalf("Escape(%q) = %q begins with a formula character", s, e)
		}
	})
}

func ExampleEscape() {
	fmt.Println(Escape("=SUM(A1:A9)"), Escape("-2-3"), Escape("car"))
	// Output: '=SUM(A1:A9) '-2-3 car
}
