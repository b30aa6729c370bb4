package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/testset"
)

// TestExamplesConfined gives the report's example section test sets whose
// manifest names images outside the test set or the dataset (issue 15,
// finding 5: vcr report embedded them). Each is refused with an error
// naming the manifest and the row; nothing outside is embedded.
func TestExamplesConfined(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret.png")
	if err := imageio.Save(secret, imageio.New(8, 8), imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(base, "data")
	os.MkdirAll(filepath.Join(data, "car"), 0o755)
	imageio.Save(filepath.Join(data, "car", "a.png"), imageio.New(8, 8), imageio.EncodeOptions{})
	row := func(source, path string) string {
		// id,source,label,corruption,params,seed,vif,dv,path,label_index,label_name,source_index,severity,sampling,vif_method,width,height
		return strings.Join([]string{"0", source, "car", "blur", `"{""sigma"":1}"`, "1", "0.9", "0.1", path, "0", "car", "0", "", "uniform", "vcr-py", "8", "8"}, ",") + "\n"
	}
	for _, tc := range []struct {
		name, source, path string
		link               bool // images/0.png is a link to secret
		want               string
	}{
		{"ok", "car/a.png", "images/0.png", false, ""},
		{"path climbs out", "car/a.png", "../secret.png", false, "row 2"},
		{"path absolute", "car/a.png", filepath.ToSlash(secret), false, "row 2"},
		{"path symlink out", "car/a.png", "images/0.png", true, "id 0"},
		{"source absolute", filepath.ToSlash(secret), "images/0.png", false, "id 0"},
		{"source climbs out", "../secret.png", "images/0.png", false, "id 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := filepath.Join(t.TempDir(), "ts")
			os.MkdirAll(filepath.Join(ts, "images"), 0o755)
			img := filepath.Join(ts, "images", "0.png")
			if tc.link {
				if err := os.Symlink(secret, img); err != nil {
					t.Skip("no symbolic links:", err)
				}
			} else {
				imageio.Save(img, imageio.New(8, 8), imageio.EncodeOptions{})
			}
			manifest := strings.Join(testset.Columns, ",") + "\n" + row(tc.source, tc.path)
			os.WriteFile(filepath.Join(ts, testset.ManifestFile), []byte(manifest), 0o644)
			ex, err := examples(ts, "imagefolder", data)
			if tc.want == "" {
				if err != nil || len(ex["blur"]) != 1 || ex["blur"][0].clean == "" {
					t.Fatalf("a confined test set: %v, %+v", err, ex)
				}
				return
			}
			if err == nil {
				t.Fatalf("embedded %d examples from a manifest naming a file outside", len(ex["blur"]))
			}
			for _, want := range []string{testset.ManifestFile, tc.want, "not a path inside the folder"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
