module github.com/vcr-bench/vcr

go 1.26.8

require (
	golang.org/x/image v0.47.0
	golang.org/x/term v0.47.0
)

require golang.org/x/sys v0.49.0

require gonum.org/v1/gonum v0.17.0
