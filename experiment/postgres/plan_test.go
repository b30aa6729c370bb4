package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/experiment/internal/sqlstore"
	"github.com/vcr-bench/vcr/experiment/postgres"
	"github.com/vcr-bench/vcr/experiment/storetest"
)

// TestQueryPlans checks that the frequent queries can find their rows
// through indexes: with sequential scans disabled and generic plans forced
// (so the plan does not depend on the parameter values), no plan may still
// contain a Seq Scan, which the planner keeps only when no index serves.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	defer st.Close()
	if err := st.Init(ctx, storetest.NewDesign("plan", 2, 3, 2)); err != nil {
		t.Fatal(err)
	}
	db := st.(*postgres.Store).DB()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, set := range []string{"SET enable_seqscan = off", "SET plan_cache_mode = force_generic_plan"} {
		if _, err := conn.ExecContext(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	for name, q := range sqlstore.PointQueries {
		n := strings.Count(q, "?")
		for k := 1; k <= n; k++ {
			q = strings.Replace(q, "?", fmt.Sprintf("$%d", k), 1)
		}
		i++
		stmt := fmt.Sprintf("plan%d", i)
		if _, err := conn.ExecContext(ctx, "PREPARE "+stmt+" AS "+q); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		nulls := strings.TrimSuffix(strings.Repeat("NULL, ", n), ", ")
		exec := "EXPLAIN EXECUTE " + stmt
		if n > 0 {
			exec += "(" + nulls + ")"
		}
		rows, err := conn.QueryContext(ctx, exec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, strings.TrimSpace(line))
		}
		rows.Close()
		if p := strings.Join(plan, "\n"); strings.Contains(p, "Seq Scan") {
			t.Errorf("%s needs a sequential scan:\n%s", name, p)
		}
		t.Logf("%s: %q", name, plan)
	}
}
