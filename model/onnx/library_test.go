package onnx_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/model/onnx"
)

// clearLibraryEnv unsets the variables that name the library explicitly.
func clearLibraryEnv(t *testing.T) {
	for _, env := range []string{onnx.EnvLibrary, "ONNXRUNTIME_LIB", "ORT_DYLIB_PATH"} {
		t.Setenv(env, "")
	}
}

func TestFindLibraryExplicit(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libonnxruntime.so.1.30.0")
	if err := os.WriteFile(lib, []byte("fake"), 0o644); err != nil {
		t.Fatal(err)
	}
	clearLibraryEnv(t)

	// The option wins over the environment.
	t.Setenv(onnx.EnvLibrary, filepath.Join(dir, "elsewhere.so"))
	if got, _, err := onnx.FindLibrary(onnx.Options{Library: lib}); err != nil || got != lib {
		t.Errorf("FindLibrary(Library) = %q, %v; want %q", got, err, lib)
	}
	// An explicit path that doesn't exist is an error, not skipped.
	_, tried, err := onnx.FindLibrary(onnx.Options{})
	if !errors.Is(err, onnx.ErrLibraryNotFound) || len(tried) != 1 || !strings.Contains(err.Error(), "$"+onnx.EnvLibrary) {
		t.Errorf("missing $%s: tried %q, error %v", onnx.EnvLibrary, tried, err)
	}
	t.Setenv(onnx.EnvLibrary, "")
	t.Setenv("ORT_DYLIB_PATH", lib)
	if got, _, err := onnx.FindLibrary(onnx.Options{}); err != nil || got != lib {
		t.Errorf("FindLibrary with $ORT_DYLIB_PATH = %q, %v; want %q", got, err, lib)
	}
	if _, _, err := onnx.FindLibrary(onnx.Options{Library: dir}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: error %v", err)
	}
}

// TestFindLibraryNPM plants an npm onnxruntime-node layout in a temporary
// directory and finds it from a subdirectory.
func TestFindLibraryNPM(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the planted layout is the linux one")
	}
	root := t.TempDir()
	arch := map[string]string{"amd64": "x64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	libDir := filepath.Join(root, "node_modules", "onnxruntime-node", "bin", "napi-v6", "linux", arch)
	if err := os.MkdirAll(libDir, 0o755); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(libDir, "libonnxruntime.so.1")
	if err := os.WriteFile(lib, []byte("fake"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	clearLibraryEnv(t)
	t.Chdir(sub)
	got, tried, err := onnx.FindLibrary(onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(root, "node_modules", "onnxruntime-node", "bin", "napi-v*", "linux", arch, "libonnxruntime.so*")
	i := slices.Index(tried, pattern)
	if i < 0 {
		t.Fatalf("tried %q, which lacks %q", tried, pattern)
	}
	// A Python package installed on this machine comes first; otherwise
	// the planted library must be the one found.
	if got != lib && i != len(tried)-1 {
		t.Errorf("FindLibrary = %q, want %q (tried %q)", got, lib, tried)
	}
	if got != lib {
		t.Logf("found %s before the planted library", got)
	}
}

func TestFindLibraryMissingSaysHow(t *testing.T) {
	clearLibraryEnv(t)
	_, _, err := onnx.FindLibrary(onnx.Options{Library: filepath.Join(t.TempDir(), "libonnxruntime.so")})
	var le *onnx.LibraryError
	if !errors.As(err, &le) || !errors.Is(err, onnx.ErrLibraryNotFound) {
		t.Fatalf("error %v is not a *LibraryError wrapping ErrLibraryNotFound", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"npm install --prefix", "--ignore-scripts onnxruntime-node@" + onnx.NPMVersion,
		"node_modules/onnxruntime-node/bin/napi-v6/",
		"pip install onnxruntime", "onnxruntime-gpu",
		"github.com/microsoft/onnxruntime/releases", "--onnxruntime-lib", onnx.EnvLibrary,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

// TestCandidates checks that discovery covers the usual install locations.
func TestCandidates(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux paths")
	}
	clearLibraryEnv(t)
	t.Setenv("LD_LIBRARY_PATH", "/opt/ort-test/lib")
	t.Chdir(t.TempDir())
	_, tried, err := onnx.FindLibrary(onnx.Options{})
	if err == nil {
		// Found one on this machine: the list stops there; nothing to check.
		t.Skip("a library is installed; the candidate list stopped early")
	}
	all := strings.Join(tried, "\n")
	for _, want := range []string{
		"/.local/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so*",
		"/usr/lib/python3/dist-packages/onnxruntime/capi/libonnxruntime.so*",
		"/node_modules/onnxruntime-node/bin/napi-v*/linux/",
		"/usr/lib/node_modules/onnxruntime-node/",
		"/opt/ort-test/lib/libonnxruntime.so*",
		"/usr/local/lib/libonnxruntime.so*",
		"/usr/lib/libonnxruntime.so*",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("candidates lack %q:\n%s", want, all)
		}
	}
}
