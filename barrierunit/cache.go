package barrierunit

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/hxbar/hxbar/hw"
)

// Cache limits: a butterfly schedule of a million ranks holds 40 million
// routes (1.6 GB), so the cache is bounded by routes as well as by entries.
// The most recent schedule is kept even when it alone exceeds the budget.
const cacheEntries = 64

var cacheRoutes = 1 << 25 // a variable so that a test can shrink it

type cacheKey struct {
	algo  hw.Algorithm
	ranks int
}

var cache = struct {
	sync.Mutex
	lru    *simplelru.LRU[cacheKey, *Schedule]
	routes int
}{}

func init() {
	l, err := simplelru.NewLRU[cacheKey, *Schedule](cacheEntries, func(_ cacheKey, s *Schedule) {
		cache.routes -= len(s.Routes) // called with cache locked
	})
	if err != nil {
		panic(err) // only for a non-positive size, a constant here
	}
	cache.lru = l
}

// Cached returns Generate(algo, ranks) from a process-wide LRU cache, so that
// repeated calls return the same *Schedule. The schedule is shared: callers
// must not modify it (copy it first). Safe for concurrent use; errors are not
// cached.
func Cached(algo hw.Algorithm, ranks int) (*Schedule, error) {
	k := cacheKey{algo, ranks}
	cache.Lock()
	s, ok := cache.lru.Get(k)
	cache.Unlock()
	if ok {
		return s, nil
	}
	// Generate outside the lock: a million ranks take a while, and other
	// keys should not wait for it.
	s, err := Generate(algo, ranks)
	if err != nil {
		return nil, err
	}
	cache.Lock()
	defer cache.Unlock()
	if prev, ok := cache.lru.Get(k); ok {
		return prev, nil // another caller won the race: keep one schedule per key
	}
	cache.lru.Add(k, s)
	cache.routes += len(s.Routes)
	for cache.routes > cacheRoutes && cache.lru.Len() > 1 {
		cache.lru.RemoveOldest()
	}
	return s, nil
}
