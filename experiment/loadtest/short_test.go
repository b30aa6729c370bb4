package loadtest

import (
	"strings"
	"testing"
)

// TestShortErrorPage checks that an error answer's HTML page becomes its
// visible text on one line (the failure lines of a load test printed the
// page's head before), and that other bodies are kept and cut at 200
// characters without splitting a character.
func TestShortErrorPage(t *testing.T) {
	// The shape of the experiment app's error page.
	page := "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Image recognition study</title>\n" +
		"<style>p{color:red}</style>\n</head>\n<body>\n<main class=\"page\">\n<h1>Sorry</h1>\n" +
		"<p>This request was refused (missing or invalid security token). Please reload the page &amp; try again.</p>\n</main>\n</body>\n</html>\n"
	if got, want := short([]byte(page)), "Sorry This request was refused (missing or invalid security token). Please reload the page & try again."; got != want {
		t.Errorf("short(page) = %q, want %q", got, want)
	}
	if got := short([]byte(`{"error":"study full"}`)); got != `{"error":"study full"}` {
		t.Errorf("short(JSON) = %q", got)
	}
	long := strings.Repeat("Δ", 250)
	if got, want := short([]byte(long)), strings.Repeat("Δ", 200)+"…"; got != want {
		t.Errorf("short(250 × Δ) has %d runes, want 200 and …", len([]rune(got)))
	}
}
