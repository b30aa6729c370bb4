package postgres_test

import (
	"context"
	"log"

	"github.com/vcr-bench/vcr/experiment/postgres"
	"github.com/vcr-bench/vcr/experiment/storetest"
)

// Several server processes may open the same database; each calls Init
// with the same design.
func ExampleOpen() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, "postgres://vcr@db.example.org:5432/exp?sslmode=require")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Init(ctx, storetest.NewDesign("example", 2, 4, 1)); err != nil {
		log.Fatal(err) // wraps experiment.ErrDesignMismatch if the database holds another design
	}
}
