package loadtest

import (
	"html"
	"regexp"
	"strings"
)

// The participant pages are server-rendered HTML; the client needs only a
// few attributes from them, so a tag scanner is enough.
var (
	tagRE  = regexp.MustCompile(`(?is)<(input|meta|button|form|/form)\b([^>]*)>`)
	attrRE = regexp.MustCompile(`(?s)([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>` + "`" + `]+)))?`)
)

// tag is one start tag: its name and attributes (names lower-cased, values
// unescaped).
type tag struct {
	name  string
	attrs map[string]string
}

func scanTags(page string) []tag {
	var out []tag
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		t := tag{name: strings.ToLower(m[1]), attrs: map[string]string{}}
		for _, a := range attrRE.FindAllStringSubmatch(m[2], -1) {
			v := a[2] + a[3] + a[4]
			t.attrs[strings.ToLower(a[1])] = html.UnescapeString(v)
		}
		out = append(out, t)
	}
	return out
}

// joinForm returns the fields the consent page's form posts to action
// (normally /join): its hidden inputs and its consent control, set to yes.
// ok is false when the page has no such form.
func joinForm(page string) (action string, fields map[string]string, ok bool) {
	fields = map[string]string{}
	in := false
	for _, t := range scanTags(page) {
		switch t.name {
		case "form":
			a := t.attrs["action"]
			if strings.HasSuffix(strings.SplitN(a, "?", 2)[0], "/join") {
				in, ok, action = true, true, a
			}
		case "/form":
			if in {
				return action, fields, true
			}
		case "input", "button":
			if !in || t.attrs["name"] == "" {
				continue
			}
			switch strings.ToLower(t.attrs["type"]) {
			case "hidden", "checkbox", "submit", "":
				v, has := t.attrs["value"]
				if !has {
					v = "on"
				}
				if _, seen := fields[t.attrs["name"]]; !seen || t.attrs["name"] == "consent" {
					fields[t.attrs["name"]] = v
				}
			}
		}
	}
	return action, fields, ok
}

// metaContent returns the content of <meta name="name">, or "".
func metaContent(page, name string) string {
	for _, t := range scanTags(page) {
		if t.name == "meta" && strings.EqualFold(t.attrs["name"], name) {
			return t.attrs["content"]
		}
	}
	return ""
}

var (
	anyTagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
	headRE     = regexp.MustCompile(`(?is)<head\b.*?</head>|<script\b.*?</script>|<style\b.*?</style>`)
	htmlHeadRE = regexp.MustCompile(`(?i)^\s*(<!doctype html|<html)`)
)

// htmlText returns the visible text of an HTML page (head, scripts and
// styles left out, tags removed, entities decoded, white space collapsed)
// and true, or "" and false when page is not HTML.
func htmlText(page string) (string, bool) {
	if !htmlHeadRE.MatchString(page) {
		return "", false
	}
	t := anyTagRE.ReplaceAllString(headRE.ReplaceAllString(page, " "), " ")
	return strings.Join(strings.Fields(html.UnescapeString(t)), " "), true
}
