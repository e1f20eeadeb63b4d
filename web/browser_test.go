package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, installed by hack/install.sh.
const chromiumPath = "/usr/bin/chromium"

// step is how long one browser step may take before the test fails.
const step = 15 * time.Second

// browser is one headless Chromium tab on the web UI of a restyplane.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string // uncaught exceptions and policy violations seen in the console
	console  []string // the last console messages of any kind, for a failed step's report
}

// keptConsole is how many of the newest console messages a browser keeps.
const keptConsole = 20

// newBrowser starts Chromium with a fresh profile and a window of width×height, opens the
// UI at base, and registers a cleanup that saves a screenshot when the test failed.
func newBrowser(t *testing.T, base string, width, height int) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is not installed at %s: run `make test` (hack/install.sh installs it): %v", chromiumPath, err)
	}
	profile, err := os.MkdirTemp("", "restyplane-web-chromium")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	relayIntoNetns(t, u.Host)
	ns, _ := browserNetns()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		// In a network namespace of its own (netns_test.go); Pdeathsig as chromedp sets it.
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.Args = append([]string{"ip", "netns", "exec", ns}, cmd.Args...)
			cmd.Path, _ = exec.LookPath("ip")
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		}),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(width, height),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{t: t, ctx: ctx, base: base}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		// Chromium may still be writing its profile for a moment after it exits.
		_ = os.RemoveAll(profile)
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			text := m.String()
			b.mu.Lock()
			if m.IsException() || strings.Contains(text, "Content Security Policy") {
				b.problems = append(b.problems, text)
			}
			b.console = append(b.console[max(0, len(b.console)-keptConsole+1):], text)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(b.afterTest)
	b.do("open the UI", chromedp.EmulateViewport(int64(width), int64(height)), chromedp.Navigate(base+"/"))
	return b
}

// afterTest fails the test on console problems and saves a screenshot of a failed test.
func (b *browser) afterTest() {
	b.mu.Lock()
	problems := append([]string(nil), b.problems...)
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	// The UI records violations itself too, for those the console reports late.
	if v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.restyplane ? window.restyplane.cspViolations : []`)); err == nil && len(v) > 0 {
		problems = append(problems, fmt.Sprintf("Content-Security-Policy violations: %v", v))
	}
	for _, p := range problems {
		b.t.Errorf("browser console: %s", p)
	}
	if !b.t.Failed() {
		return
	}
	b.screenshot(filepath.Join(os.TempDir(), "restyplane-web-"+fileName(b.t.Name())+".png"), "screenshot of the failed page")
}

// screenshot saves the whole page as PNG and logs where.
func (b *browser) screenshot(path, what string) {
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("%s: cannot capture: %v", what, err)
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("%s: cannot write %s: %v", what, path, err)
		return
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	b.t.Logf("%s (%s): %s", what, loc, path)
}

func fileName(s string) string {
	return regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(s, "_")
}

// do runs steps with a time limit and fails the test, saying what it was doing, on error.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// evalJS evaluates a JavaScript expression and decodes its value.
func evalJS[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// js quotes a Go value as a JavaScript literal.
func js(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(out)
}

// tid is the CSS selector of the elements with a data-testid.
func tid(id string) string { return fmt.Sprintf(`[data-testid=%q]`, id) }

// field is the CSS selector of the input that edits an API field path.
func field(path string) string { return fmt.Sprintf(`[data-field=%q]`, path) }

// waitFor waits until a JavaScript condition is true, and fails with what the page shows
// when it never becomes true.
func (b *browser) waitFor(what, cond string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, step)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(step-time.Second)))
	if err != nil {
		main := evalJS[string](b, `(document.querySelector('main') || document.body).innerText.slice(0, 1500)`)
		b.mu.Lock()
		console := strings.Join(b.console, "\n")
		b.mu.Unlock()
		// What the page loaded and how long each took: a UI stuck at "Loading…" says
		// which of its modules never came.
		loaded := evalJS[string](b, `document.readyState + ": " + performance.getEntriesByType('resource').map(e =>
			e.name.replace(location.origin, '') + ' ' + Math.round(e.duration) + ' ms ' + (e.responseStatus || '-')).join(', ')`)
		b.t.Fatalf("%s: %v\nlocation %s\npage shows:\n%s\nconsole:\n%s\nloaded: %s", what, err, evalJS[string](b, `location.href`), main, console, loaded)
	}
}

// waitVisible waits until an element matching sel exists and is rendered.
func (b *browser) waitVisible(sel string) {
	b.t.Helper()
	b.waitFor("wait for "+sel, fmt.Sprintf(`(() => { const e = document.querySelector(%s); return !!e && e.getClientRects().length > 0; })()`, js(sel)))
}

// waitText waits until the element matching sel contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("wait for %s to contain %q", sel, want),
		fmt.Sprintf(`(() => { const e = document.querySelector(%s); return !!e && e.textContent.includes(%s); })()`, js(sel), js(want)))
}

// text returns the text of the first element matching sel ("" when there is none).
func (b *browser) text(sel string) string {
	b.t.Helper()
	return evalJS[string](b, fmt.Sprintf(`(document.querySelector(%s) || {textContent: ''}).textContent`, js(sel)))
}

// value returns the value of the input or select matching sel, failing when there is none.
func (b *browser) value(sel string) string {
	b.t.Helper()
	if b.count(sel) == 0 {
		b.t.Fatalf("no input %s", sel)
	}
	return evalJS[string](b, fmt.Sprintf(`document.querySelector(%s).value`, js(sel)))
}

// count returns how many elements match sel.
func (b *browser) count(sel string) int {
	b.t.Helper()
	return evalJS[int](b, fmt.Sprintf(`document.querySelectorAll(%s).length`, js(sel)))
}

// renders is how many views the UI finished drawing.
func (b *browser) renders() int {
	b.t.Helper()
	return evalJS[int](b, `Number(document.getElementById('main').dataset.renders || 0)`)
}

// route goes to a hash route, as a click on a link would, and waits until the new view is
// drawn and shows ready.
func (b *browser) route(hash, ready string) {
	b.t.Helper()
	before := b.renders()
	evalJS[chromedp.Void](b, fmt.Sprintf(`location.hash = %s`, js(hash)))
	b.waitRendered(before, ready)
}

// waitRendered waits until a view newer than the before-th is drawn and shows ready.
func (b *browser) waitRendered(before int, ready string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("wait for a new view showing %s", ready),
		fmt.Sprintf(`Number(document.getElementById('main').dataset.renders || 0) > %d`, before))
	b.waitVisible(ready)
}

// click clicks the first element matching sel.
func (b *browser) click(sel string) {
	b.t.Helper()
	b.waitVisible(sel)
	b.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// typeInto clears an input and types text into it with key events.
func (b *browser) typeInto(sel, text string) {
	b.t.Helper()
	b.waitVisible(sel)
	evalJS[chromedp.Void](b, fmt.Sprintf(`document.querySelector(%s).value = ''`, js(sel)))
	b.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// choose selects an option of a <select> and fires change, as picking it by hand does.
func (b *browser) choose(sel, value string) {
	b.t.Helper()
	b.waitVisible(sel)
	ok := evalJS[bool](b, fmt.Sprintf(`(() => {
		const s = document.querySelector(%s);
		if (![...s.options].some((o) => o.value === %s)) return false;
		s.value = %s;
		s.dispatchEvent(new Event('change', { bubbles: true }));
		return true;
	})()`, js(sel), js(value), js(value)))
	if !ok {
		b.t.Fatalf("%s has no option %q", sel, value)
	}
}

// signIn signs in through the form and waits for the overview.
func (b *browser) signIn(secret string) {
	b.t.Helper()
	b.waitVisible(tid("signin-token"))
	b.typeInto(tid("signin-token"), secret)
	b.click(tid("signin-submit"))
	b.waitVisible(tid("overview"))
}

// noHorizontalScroll fails when the page is wider than the window.
func (b *browser) noHorizontalScroll(where string) {
	b.t.Helper()
	sw := evalJS[int](b, `document.documentElement.scrollWidth`)
	w := evalJS[int](b, `window.innerWidth`)
	if sw > w {
		wide := evalJS[string](b, `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + (e.dataset.testid || '')).join(', ')`)
		b.t.Errorf("%s: page is %dpx wide in a %dpx window (too wide: %s)", where, sw, w, wide)
	}
}
