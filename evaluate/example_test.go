package evaluate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/testset"
)

// ExampleEval scores a two-row test set on the car / not-car task from a
// predictions file of ImageNet-1k class indices.
func ExampleEval() {
	dir, _ := os.MkdirTemp("", "vcr-example-")
	defer os.RemoveAll(dir)
	ts := filepath.Join(dir, "ts")
	os.MkdirAll(ts, 0o755)
	manifest := strings.Join(testset.Columns, ",") + "\n" +
		`0,a/0.png,n04285008,gaussian_noise,"{""sigma"":0.1}",1,0.75,0.25,images/gaussian_noise/000000.png,817,n04285008,0,,uniform,vcr-py,8,8` + "\n" +
		`1,b/0.png,n01440764,gaussian_noise,"{""sigma"":0.2}",2,0.5,0.5,images/gaussian_noise/000001.png,0,n01440764,1,,uniform,vcr-py,8,8` + "\n"
	os.WriteFile(filepath.Join(ts, testset.ManifestFile), []byte(manifest), 0o644)
	preds := filepath.Join(dir, "preds.csv")
	os.WriteFile(preds, []byte("id,source,kind,pred\n0,,,817\n1,,,436\n,a/0.png,clean,817\n,b/0.png,clean,1\n"), 0o644)

	out := filepath.Join(dir, "results.csv")
	sum, err := evaluate.Eval(context.Background(), evaluate.Options{
		TestSet: ts, Out: out, Model: evaluate.ModelSpec{Predictions: preds, Task: "car"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, _ := evaluate.ReadRecord(out)
	fmt.Println(sum.Rows, "rows;", sum.Correct, "corrupted correct;", sum.CorrectClean, "clean correct")
	fmt.Println(rec.Tool, rec.Task.Name, rec.Task.Classes)
	// Output:
	// 2 rows; 1 corrupted correct; 2 clean correct
	// vcr eval car [car not car]
}
