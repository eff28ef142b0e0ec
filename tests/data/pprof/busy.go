// busy.go: a small CPU-bound Go program that writes a CPU profile (pprof).
//
// go run busy.go OUT.pprof [SLOW]   (SLOW: how many times more work mix() does)
//
// Two goroutines run under the pprof label "thread" (worker-1, worker-2);
// main's own work has no label. tests/data/pprof/go-*.pprof were made with
// Debian's golang-go 1.19.
package main

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"sync"
	"time"
)

var sink uint64

func mix(n int) uint64 {
	x := uint64(n)
	for i := 0; i < 20000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func digest(n int) byte {
	var b [64]byte
	for i := 0; i < 200; i++ {
		s := sha256.Sum256(b[:])
		copy(b[:], s[:])
	}
	return b[n%64]
}

func sortSome(n int) int {
	v := make([]int, 2000)
	for i := range v {
		v[i] = (i*7919 + n) % 2003
	}
	sort.Ints(v)
	return v[n%len(v)]
}

func work(deadline time.Time, slow int) {
	for n := 0; time.Now().Before(deadline); n++ {
		for k := 0; k < slow; k++ {
			sink += mix(n + k)
		}
		sink += uint64(digest(n))
		sink += uint64(sortSome(n))
	}
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	slow := 1
	if len(os.Args) > 2 {
		slow, _ = strconv.Atoi(os.Args[2])
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	deadline := time.Now().Add(4 * time.Second)
	var wg sync.WaitGroup
	for _, name := range []string{"worker-1", "worker-2"} {
		wg.Add(1)
		go pprof.Do(context.Background(), pprof.Labels("thread", name), func(context.Context) {
			defer wg.Done()
			work(deadline, slow)
		})
	}
	work(deadline, slow)
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
}
