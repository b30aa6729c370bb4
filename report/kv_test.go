package report

import (
	"strings"
	"testing"
)

// TestKVWrapping: a list of names wraps between words only (no class that
// lets it break inside a word), a long hash may break anywhere, and a path
// may break after its slashes.
func TestKVWrapping(t *testing.T) {
	var p page
	p.kv(map[string]any{
		"corruptions": []any{"frost", "jpeg_compression", "gaussian_noise"},
		"dataset":     map[string]any{"fingerprint": strings.Repeat("e3f6", 16), "root_abs": "/tmp/lead/demo/images"},
	})
	got := p.b.String()
	for _, want := range []string{
		"<td>frost, jpeg_compression, gaussian_noise</td>",
		`<td class="long">` + strings.Repeat("e3f6", 16) + "</td>",
		"<td>/<wbr/>tmp/<wbr/>lead/<wbr/>demo/<wbr/>images</td>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
}
