package evaluate

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// DVPrefix starts the name of a manifest column that holds Δv computed
// with one VIF flavour (iqa.DVColumn: dv_vcr_py, dv_vifvec, …). Run copies
// every such column into the results, right after vif_method, in manifest
// order.
const DVPrefix = "dv_"

// manifestDV reads the dv_* columns of the manifest at path: their names
// in manifest order and, per data row in file order, the row's id and its
// values. A manifest without such columns returns no names.
func manifestDV(path string) (names []string, ids []int, values [][]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	h, err := cr.Read()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	idCol := slices.Index(h, "id")
	var cols []int
	for i, c := range h {
		if strings.HasPrefix(c, DVPrefix) {
			cols = append(cols, i)
			names = append(names, c)
		}
	}
	if len(cols) == 0 {
		return nil, nil, nil, nil
	}
	if idCol < 0 {
		return nil, nil, nil, fmt.Errorf("%s has no id column", path)
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) != len(h) {
			return nil, nil, nil, fmt.Errorf("%s row %d has %d fields, the header %d", path, line, len(rec), len(h))
		}
		id, err := strconv.Atoi(rec[idCol])
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s row %d: column id: %q is not an integer", path, line, rec[idCol])
		}
		v := make([]string, len(cols))
		for k, c := range cols {
			v[k] = rec[c]
		}
		ids = append(ids, id)
		values = append(values, v)
	}
	return names, ids, values, nil
}

// resultsHeader returns the results columns with dv names inserted right
// after vif_method.
func resultsHeader(dv []string) []string {
	at := slices.Index(Columns, "vif_method") + 1
	return slices.Concat(Columns[:at], dv, Columns[at:])
}
