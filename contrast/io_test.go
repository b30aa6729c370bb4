package contrast

import (
	"errors"
	"strings"
	"testing"
)

func TestReadLabelsErrors(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"id,background,foreground\na,red,red\nb,purple,red\n", `colors.csv:3: background: contrast: unknown colour "purple" (allowed: red, green, blue, brown, gray, white, black, others)`},
		{"id,background,foreground\na,red,magenta\n", `colors.csv:2: foreground`},
		{"id,background\na,red\n", "missing column(s) foreground"},
		{"id,background,foreground\na,red,red\na,red,blue\n", `id "a" already labelled on line 2`},
		{"id,background,foreground\n", "no labelled images"},
		{"id,background,foreground\n,red,red\n", "colors.csv:2: empty id"},
	} {
		_, err := ReadLabels(strings.NewReader(tc.csv), "colors.csv", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadLabels(%q) error %v, want it to contain %q", tc.csv, err, tc.want)
		}
	}
	_, err := ReadLabels(strings.NewReader("id,background,foreground\nb,purple,red\n"), "c.csv", nil)
	if !errors.Is(err, ErrColour) {
		t.Errorf("unknown colour does not wrap ErrColour: %v", err)
	}
	l, err := ReadLabels(strings.NewReader("ID, Foreground, Background, estimate\nx, Black ,grey,1\n"), "c.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := l.ByID["x"]; g.Background != "gray" || g.Foreground != "black" || g.Group != "low-mid" || !l.Estimated {
		t.Errorf("label %+v estimated %v", g, l.Estimated)
	}
}

func TestReadTable(t *testing.T) {
	tb, err := ReadTable(strings.NewReader("background,foreground,group\ngreen,red,low\nblack,white,high-mid\n"), "g.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ a, b, g string }{
		{"red", "green", "low"}, {"white", "black", "high-mid"}, {"red", "blue", "high"}, // the last from the built-in table
	} {
		if g, ok := tb.Group(tc.a, tc.b); !ok || g != tc.g {
			t.Errorf("Group(%s, %s) = %s, want %s", tc.a, tc.b, g, tc.g)
		}
	}
	l, err := ReadLabels(strings.NewReader("id,background,foreground\na,red,green\n"), "c.csv", tb)
	if err != nil || l.ByID["a"].Group != "low" {
		t.Errorf("labels with a user table: %v %+v", err, l)
	}
	for _, tc := range []struct{ csv, want string }{
		{"background,foreground,group\nred,green,medium\n", `g.csv:2: group "medium" is not one of`},
		{"background,foreground,group\nred,green,low\ngreen,red,high\n", "already given on line 2"},
		{"background,foreground,group\nred,others,low\n", `must be in group "others"`},
		{"background,foreground,group\nred,pink,low\n", "g.csv:2: foreground"},
		{"bg,fg,group\n", "missing column(s) background, foreground"},
	} {
		if _, err := ReadTable(strings.NewReader(tc.csv), "g.csv"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadTable(%q) error %v, want %q", tc.csv, err, tc.want)
		}
	}
}

func TestReadResults(t *testing.T) {
	csv := "id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n" +
		"000001,img/a.png,gaussian_noise,,sigma=0.1,0.25,vec,3,cat,cat,dog,1,0,0,,,\n" +
		"000002,img/b.png,gaussian_noise,2,sigma=0.2,0.5,vec,3,cat,cat,cat,1,1,1,,,\n" +
		"000003,img/c.png,gaussian_noise,,sigma=0.2,0.5,vec,3,,,,,,,,,\n" +
		"000004,img/d.png,gaussian_noise,,sigma=0.2,,vec,3,cat,,,,,,,,unreadable\n"
	rows, skipped, err := ReadResults(strings.NewReader(csv), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || skipped != 2 {
		t.Fatalf("rows %d skipped %d, want 2, 2", len(rows), skipped)
	}
	if r := rows[0]; r.Image != "img/a.png" || r.ID != "000001" || !r.CorrectClean || r.CorrectCorrupted || r.DV != 0.25 || r.Severity != 0 {
		t.Errorf("row 0 %+v", r)
	}
	if rows[1].Severity != 2 {
		t.Errorf("row 1 severity %d", rows[1].Severity)
	}
	bad := strings.Replace(csv, "0.25", "1.5", 1)
	if _, _, err := ReadResults(strings.NewReader(bad), "r.csv"); err == nil || !strings.Contains(err.Error(), "r.csv:2: dv") {
		t.Errorf("bad dv: %v", err)
	}
}
