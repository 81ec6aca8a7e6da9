package host

import (
	"os"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// TreeWatcher reports changes under a folder: every folder below it except .git and
// node_modules, including folders created after it started. It says only that
// something changed, never what the change was, so it is correct on every fsnotify
// backend (inotify, kqueue, ReadDirectoryChangesW) without the ordering the disk
// cache needs.
type TreeWatcher struct {
	w       *fsnotify.Watcher
	changes chan string
	done    chan struct{}
	wg      sync.WaitGroup
	closing sync.Once
	err     error // from the first Close
}

// WatchTree starts watching dir.
func WatchTree(dir string) (*TreeWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := addTree(w, dir); err != nil {
		w.Close()
		return nil, err
	}
	t := &TreeWatcher{w: w, changes: make(chan string, 64), done: make(chan struct{})}
	t.wg.Add(1)
	go t.loop()
	return t, nil
}

// Changes delivers the path of each changed file or folder; "" means events were
// lost (a full kernel queue), so anything may have changed.
func (t *TreeWatcher) Changes() <-chan string { return t.changes }

// Close stops watching and waits for the watcher's goroutine. Calling it again
// returns the first call's result.
func (t *TreeWatcher) Close() error {
	t.closing.Do(func() {
		close(t.done)
		t.err = t.w.Close()
		t.wg.Wait()
	})
	return t.err
}

func (t *TreeWatcher) loop() {
	defer t.wg.Done()
	for {
		var name string
		select {
		case ev, ok := <-t.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					_ = addTree(t.w, ev.Name)
				}
			}
			name = ev.Name
		case _, ok := <-t.w.Errors:
			if !ok {
				return
			}
		case <-t.done:
			return
		}
		select {
		case t.changes <- name:
		case <-t.done:
			return
		}
	}
}
