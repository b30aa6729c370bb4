package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsDoNotClobberForeignFiles checks that requirements estimate,
// requirements check, report and experiment export refuse to replace an existing file that is
// not their own kind of output (a user's predictions CSV named by a slip),
// leave it untouched, and still replace their own earlier output.
func TestOutputsDoNotClobberForeignFiles(t *testing.T) {
	dir := t.TempDir()
	preds := filepath.Join(dir, "preds.csv")
	const predsCSV = "id,pred\n0,cat\n"
	if err := os.WriteFile(preds, []byte(predsCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	req := filepath.Join(dir, "req.json")
	estimate := []string{"requirements", "estimate", "--human", "builtin:icse2022-imagenet", "--transformation", "frost"}
	if code, _, errOut := runCLI(t, append(estimate, "--out", req)...); code != exitOK {
		t.Fatal(errOut)
	}
	// Again onto its own output: replaced.
	if code, _, errOut := runCLI(t, append(estimate, "--out", req)...); code != exitOK {
		t.Errorf("estimate onto its own earlier output: exit %d, %s", code, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(estimate, "--out", preds), "--out " + preds + ": the file exists and is not a requirements file, so it is not replaced"},
		{[]string{"requirements", "check", "--requirements", req, "--testset", dir, "--predictions", preds, "--json", preds}, "--json " + preds + ": the file exists and is not a verdicts file"},
		{[]string{"requirements", "check", "--requirements", req, "--testset", dir, "--predictions", preds, "--junit", preds}, "--junit " + preds + ": the file exists and is not a JUnit XML file"},
		{[]string{"report", dir, "--out", preds}, "--out " + preds + ": the file exists and is not an HTML page"},
		{[]string{"experiment", "export", "--db", filepath.Join(dir, "study.db"), "--out", preds}, "--out " + preds + ": the file exists and is not an earlier trials export"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("vcr %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, exitUsage, tc.want)
		}
		if b, _ := os.ReadFile(preds); string(b) != predsCSV {
			t.Fatalf("vcr %s changed %s: %q", strings.Join(tc.args, " "), preds, b)
		}
	}
	// An empty file and an earlier HTML page are replaced.
	for _, c := range []struct{ name, body string }{{"empty.html", ""}, {"old.html", "<!DOCTYPE html>\n<html></html>\n"}} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := checkNotForeign("--out", p, "an HTML page", isHTML); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if !isRequirementsFile([]byte(`{"requirements": [{"transformation": "frost", "t_c": 0.84}]}`)) {
		t.Error("a requirements file without the tool field is not recognised")
	}
	if !isTrialsExport([]byte("participant,session,trial,role\n")) {
		t.Error("a trials export is not recognised")
	}
	if !isJUnit([]byte("<?xml version=\"1.0\"?>\n<testsuites>")) {
		t.Error("a JUnit file is not recognised")
	}
}
