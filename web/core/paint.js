// Work that can wait for the page's first paint: a slide deck's widgets and
// the offline copy start after the browser has shown the page, so the text a
// learner came for is on screen before they fetch, parse and draw (issue 36:
// on a slow phone, widgets mounting before the first frame pushed it past 2 s).
//
// afterFirstPaint() resolves once the browser reports its first contentful
// paint (Paint Timing), or, where it reports none, after the next two frames;
// never later than maxMs (a tab in the background draws no frames).
export function afterFirstPaint(maxMs = 2500) {
  return new Promise((resolve) => {
    let done = false, observer = null;
    const finish = () => {
      if (done) return;
      done = true;
      if (observer) observer.disconnect();
      resolve();
    };
    setTimeout(finish, maxMs);
    const painted = (list) => list.getEntriesByName('first-contentful-paint').length > 0;
    if (painted(performance)) { finish(); return; }
    const types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
    if (types.includes('paint')) {
      observer = new PerformanceObserver((list) => { if (painted(list)) finish(); });
      observer.observe({ type: 'paint', buffered: true });
    } else {
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(finish, 0)));
    }
  });
}

// one turn of the event loop where the browser may draw and handle input
export function yieldToPage() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
