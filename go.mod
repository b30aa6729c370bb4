module github.com/vcr-bench/vcr

go 1.26.8

require golang.org/x/image v0.47.0
