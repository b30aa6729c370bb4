package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
)

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.onnx")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-arch", "linear", "-classes", "1000", "-seed", "2", "-o", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Linear, Classes: 1000, Height: 224, Width: 224, Seed: 2})
	if !bytes.Equal(got, n.Marshal()) {
		t.Error("the file differs from onnxgen.New(...).Marshal()")
	}
	if !strings.Contains(stdout.String(), "[-1 3 224 224]") {
		t.Errorf("stdout %q", stdout.String())
	}
	for _, args := range [][]string{{}, {"-arch", "mlp", "-o", path}, {"-layout", "CHW", "-o", path}} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
}
