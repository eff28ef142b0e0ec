// busy_test.go: two small benchmarks whose `go test -cpuprofile` is a pprof recording.
//
// tests/data/pprof/go-test-cpuprofile.pprof was made with Debian's golang-go 1.19 in a
// copy of this folder:
//
//	go mod init busytest
//	GOFLAGS=-mod=mod GOPROXY=off go test -run='^$' -bench=. -benchtime=1s -cpuprofile cpu.pprof
package busytest

import (
	"sort"
	"testing"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func BenchmarkFib(b *testing.B) {
	for i := 0; i < b.N; i++ {
		fib(22)
	}
}

func BenchmarkSort(b *testing.B) {
	v := make([]int, 5000)
	for i := 0; i < b.N; i++ {
		for j := range v {
			v[j] = (j*7919 + i) % 5003
		}
		sort.Ints(v)
	}
}
