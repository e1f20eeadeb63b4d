package web_test

import (
	"fmt"
	"testing"
)

// TestOverviewAndHistoryFollowEvents changes the config through the API while the overview
// and then the history are open: the change appears without a page reload, and the views
// say they are live from the event stream (the UI's own indicator), so the change came by
// /api/v1/events and not by a poll.
func TestOverviewAndHistoryFollowEvents(t *testing.T) {
	rp := startRestyplane(t)
	seedShop(rp)
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.waitFor("the overview follows the event stream", fmt.Sprintf(`document.querySelector(%s).dataset.mode === 'events'`, js(tid("ov-live"))))
	renders := b.renders()
	rp.write("POST", "/api/v1/backends", "a pool added while the overview is open", obj{"name": "live-one",
		"endpoints": []obj{ep("10.0.9.1", 8080, 1)}})
	head := rp.head()
	b.waitFor("the overview shows the new head", fmt.Sprintf(`document.querySelector(%s).textContent === '#%d'`, js(tid("ov-head")), head))
	b.waitFor("the overview lists the new revision", fmt.Sprintf(`document.querySelector(%s).textContent.includes('a pool added while the overview is open')`, js(tid("ov-revisions"))))
	if got := b.renders(); got != renders {
		t.Fatalf("the overview was drawn again (%d -> %d views); it should update in place", renders, got)
	}
	if mode := evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).dataset.mode`, js(tid("ov-live")))); mode != "events" {
		t.Fatalf("overview live mode = %q, want events", mode)
	}

	b.route("#/history", tid("history"))
	b.waitFor("the history follows the event stream", fmt.Sprintf(`document.querySelector(%s).dataset.live === 'events'`, js(tid("history"))))
	renders = b.renders()
	rp.write("POST", "/api/v1/backends", "a pool added while the history is open", obj{"name": "live-two",
		"endpoints": []obj{ep("10.0.9.2", 8080, 1)}})
	b.waitFor("the history lists the new revision", fmt.Sprintf(`document.querySelector(%s).textContent.includes('a pool added while the history is open')`, js(tid("history-list"))))
	if got := b.renders(); got != renders {
		t.Fatalf("the history was drawn again (%d -> %d views); it should update in place", renders, got)
	}
	if mode := evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).dataset.live`, js(tid("history")))); mode != "events" {
		t.Fatalf("history live mode = %q, want events", mode)
	}
}
