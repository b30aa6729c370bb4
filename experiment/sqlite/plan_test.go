package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/experiment/internal/sqlstore"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/experiment/storetest"
)

// TestQueryPlans checks with EXPLAIN QUERY PLAN that the frequent queries
// find their rows through indexes: no full scan of a table.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "plan.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Init(ctx, storetest.NewDesign("plan", 2, 3, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	for name, q := range sqlstore.PointQueries {
		args := make([]any, strings.Count(q, "?"))
		for i := range args {
			args[i] = 1
		}
		rows, err := s.DB().QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, d := range plan {
			if strings.HasPrefix(d, "SCAN ") && !strings.Contains(d, "INDEX") {
				t.Errorf("%s scans a table: %q", name, plan)
			}
		}
		t.Logf("%s: %q", name, plan)
	}
}
