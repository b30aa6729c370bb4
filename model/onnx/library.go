package onnx

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/vcr-bench/vcr/model"
)

// Options configure Open.
type Options struct {
	// Library is the path of the ONNX Runtime shared library
	// (libonnxruntime.so*, libonnxruntime*.dylib, onnxruntime.dll). Empty
	// means: look for it (see FindLibrary).
	Library string
	// CUDA runs the model on the CUDA execution provider, which needs a GPU
	// build of ONNX Runtime; Open fails if the library lacks it.
	CUDA bool
	// CUDADevice is the GPU to use with CUDA.
	CUDADevice int
	// Threads is the number of intra-op threads; 0 lets ONNX Runtime
	// choose (one per physical core).
	Threads int
	// MaxBatch is the largest number of images sent to the model in one
	// run; Classify splits larger batches. 0 means 32. A model with a fixed
	// batch dimension always runs batches of that size.
	MaxBatch int
	// Output names the output tensor holding the scores; empty means the
	// model's first output.
	Output string
	// Layout overrides the input layout, which Open otherwise infers from
	// the input shape (3 channels in dimension 1: NCHW; in dimension 3:
	// NHWC).
	Layout model.Layout
}

// EnvLibrary and the other environment variables FindLibrary reads, in
// order, for the library's path.
const EnvLibrary = "VCR_ONNXRUNTIME_LIB"

var envLibraries = []string{EnvLibrary, "ONNXRUNTIME_LIB", "ORT_DYLIB_PATH"}

// NPMVersion is the onnxruntime-node version the install instructions and CI
// use.
const NPMVersion = "1.30.0"

// ErrLibraryNotFound is wrapped by the error FindLibrary returns when no
// ONNX Runtime library is found.
var ErrLibraryNotFound = errors.New("ONNX Runtime shared library not found")

// LibraryError is FindLibrary's error: where it looked and how to install
// the library.
type LibraryError struct {
	// Tried lists the paths and glob patterns checked, in order.
	Tried []string
	// Err is ErrLibraryNotFound, or the reason an explicitly given path
	// can't be used.
	Err error
}

func (e *LibraryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "onnx: %v", e.Err)
	if len(e.Tried) > 0 {
		b.WriteString("; looked in:")
		for _, t := range e.Tried {
			b.WriteString("\n    " + t)
		}
	}
	b.WriteString("\n" + InstallHint())
	return b.String()
}

func (e *LibraryError) Unwrap() error { return e.Err }

// InstallHint tells the user how to get the ONNX Runtime library.
func InstallHint() string {
	return fmt.Sprintf(`Get ONNX Runtime (version 1.24 or later) in one of these ways:
  - npm (no build, no GPU): npm install --prefix ~/.cache/vcr-ort --ignore-scripts onnxruntime-node@%s
    then pass --onnxruntime-lib ~/.cache/vcr-ort/node_modules/onnxruntime-node/bin/napi-v6/%s/%s/libonnxruntime.so.1
    (or run npm install --ignore-scripts onnxruntime-node in this directory and vcr finds it)
  - pip: pip install onnxruntime   (or onnxruntime-gpu for CUDA); vcr looks in site-packages/onnxruntime/capi/
  - an official release: https://github.com/microsoft/onnxruntime/releases, onnxruntime-linux-x64-<version>.tgz
    (or -gpu-), then --onnxruntime-lib <dir>/lib/libonnxruntime.so.<version>
Or set %s to the library's path.`, NPMVersion, runtime.GOOS, npmArch(), EnvLibrary)
}

// FindLibrary returns the ONNX Runtime shared library Open would load and
// the places it checked. It takes, in order: opt.Library; the environment
// variables VCR_ONNXRUNTIME_LIB, ONNXRUNTIME_LIB and ORT_DYLIB_PATH; a Python
// onnxruntime package (site-packages/onnxruntime/capi/) of the python3 in
// PATH, the active virtualenv or conda environment, ~/.local and the system;
// an npm onnxruntime-node package (node_modules/onnxruntime-node/bin/…) in
// the working directory or its parents, the enclosing Go module's .cache
// directory, or the global npm root; and the system library directories
// (LD_LIBRARY_PATH, /usr/local/lib, /usr/lib, …). An explicit path (option
// or variable) that does not exist is an error, not skipped. The error is a
// *LibraryError wrapping ErrLibraryNotFound.
func FindLibrary(opt Options) (string, []string, error) {
	var tried []string
	explicit := func(path, from string) (string, []string, error) {
		tried = append(tried, path+" ("+from+")")
		st, err := os.Stat(path)
		if err != nil {
			return "", tried, &LibraryError{Tried: tried, Err: fmt.Errorf("%s %s: %w", from, path, ErrLibraryNotFound)}
		}
		if st.IsDir() {
			return "", tried, &LibraryError{Tried: tried, Err: fmt.Errorf("%s %s is a directory, not the library file: %w", from, path, ErrLibraryNotFound)}
		}
		return path, tried, nil
	}
	if opt.Library != "" {
		return explicit(opt.Library, "--onnxruntime-lib")
	}
	for _, env := range envLibraries {
		if v := os.Getenv(env); v != "" {
			return explicit(v, "$"+env)
		}
	}
	for _, pattern := range candidatePatterns() {
		tried = append(tried, pattern)
		matches, _ := filepath.Glob(pattern)
		if len(matches) == 0 {
			continue
		}
		// Prefer the highest version when several match (lexical order
		// sorts libonnxruntime.so.1.20.1 before libonnxruntime.so.1.30.0).
		sort.Strings(matches)
		for i := len(matches) - 1; i >= 0; i-- {
			if st, err := os.Stat(matches[i]); err == nil && !st.IsDir() {
				return matches[i], tried, nil
			}
		}
	}
	return "", tried, &LibraryError{Tried: tried, Err: ErrLibraryNotFound}
}

// libName is the glob pattern of the library's file name.
func libName() string {
	switch runtime.GOOS {
	case "darwin":
		return "libonnxruntime*.dylib"
	case "windows":
		return "onnxruntime.dll"
	}
	return "libonnxruntime.so*"
}

// npmArch is the architecture directory name onnxruntime-node uses.
func npmArch() string {
	if runtime.GOARCH == "amd64" {
		return "x64"
	}
	return runtime.GOARCH
}

// candidatePatterns lists the glob patterns FindLibrary tries after the
// explicit settings, most specific first.
func candidatePatterns() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	name := libName()
	home, _ := os.UserHomeDir()

	// Python onnxruntime packages.
	var prefixes []string
	if py, err := exec.LookPath("python3"); err == nil {
		if real, err := filepath.EvalSymlinks(py); err == nil {
			py = real
		}
		prefixes = append(prefixes, filepath.Dir(filepath.Dir(py)))
	}
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v := os.Getenv(env); v != "" {
			prefixes = append(prefixes, v)
		}
	}
	if home != "" {
		prefixes = append(prefixes, filepath.Join(home, ".local"), filepath.Join(home, ".pyenv", "versions", "*"))
	}
	prefixes = append(prefixes, "/usr/local", "/usr")
	for _, p := range prefixes {
		for _, sp := range []string{"site-packages", "dist-packages"} {
			add(filepath.Join(p, "lib", "python3*", sp, "onnxruntime", "capi", name))
		}
	}
	add(filepath.Join("/usr/lib/python3/dist-packages/onnxruntime/capi", name))

	// npm onnxruntime-node packages.
	npmLib := filepath.Join("onnxruntime-node", "bin", "napi-v*", runtime.GOOS, npmArch(), name)
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			add(filepath.Join(dir, "node_modules", npmLib))
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				add(filepath.Join(dir, ".cache", "onnxruntime", "node_modules", npmLib))
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if home != "" {
		add(filepath.Join(home, ".cache", "vcr-ort", "node_modules", npmLib))
	}
	var npmRoots []string
	if v := os.Getenv("NPM_CONFIG_PREFIX"); v != "" {
		npmRoots = append(npmRoots, filepath.Join(v, "lib", "node_modules"))
	}
	if node, err := exec.LookPath("node"); err == nil {
		if real, err := filepath.EvalSymlinks(node); err == nil {
			node = real
		}
		npmRoots = append(npmRoots, filepath.Join(filepath.Dir(filepath.Dir(node)), "lib", "node_modules"))
	}
	if home != "" {
		npmRoots = append(npmRoots, filepath.Join(home, ".npm-global", "lib", "node_modules"))
	}
	npmRoots = append(npmRoots, "/usr/local/lib/node_modules", "/usr/lib/node_modules")
	for _, r := range npmRoots {
		add(filepath.Join(r, npmLib))
	}

	// System library directories.
	for _, d := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if d != "" {
			add(filepath.Join(d, name))
		}
	}
	for _, d := range []string{"/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64",
		"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/opt/onnxruntime/lib", "/opt/homebrew/lib"} {
		add(filepath.Join(d, name))
	}
	return out
}
