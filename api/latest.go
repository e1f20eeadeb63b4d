package api

import "sync"

// Latest holds the newest value of something that changes, the head of a history say, and
// lets waiters learn of its next change: Changed returns a channel that the next Publish
// closes. A waiter takes a fresh channel after each wake-up, so a burst of changes wakes
// it once. It is safe for concurrent use.
type Latest[T any] struct {
	mu      sync.RWMutex
	v       T
	changed chan struct{}
}

// NewLatest returns a Latest holding v.
func NewLatest[T any](v T) *Latest[T] {
	return &Latest[T]{v: v, changed: make(chan struct{})}
}

// Get returns the value held.
func (l *Latest[T]) Get() T {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.v
}

// Changed returns a channel that is closed at the next Publish.
func (l *Latest[T]) Changed() <-chan struct{} {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.changed
}

// Publish holds v and wakes the waiters of Changed.
func (l *Latest[T]) Publish(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.v = v
	close(l.changed)
	l.changed = make(chan struct{})
}

// Set holds v without waking anyone: for a change the waiters made themselves.
func (l *Latest[T]) Set(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.v = v
}
