// loopgate HTML report: draws the page from the JSON in #data. No library,
// no network: every node is built here, and text from the report only ever
// goes in as text (textContent), never as markup.
(function () {
  "use strict";
  var started = performance.now();

  var D = JSON.parse(document.getElementById("data").textContent);
  var kind = document.body.getAttribute("data-kind");
  var main = document.getElementById("main");
  var tip = document.getElementById("tip");
  // The SVG namespace, taken from the parser rather than written out.
  var NS = (function () {
    var d = document.createElement("div");
    d.innerHTML = "<svg></svg>";
    return d.firstChild.namespaceURI;
  })();

  // ---- building blocks ------------------------------------------------

  function put(e, attrs, kids) {
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v == null || v === false) return;
        if (k === "text") e.textContent = v;
        else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : v);
      });
    }
    add(e, kids);
    return e;
  }
  function add(e, kids) {
    if (kids == null) return;
    if (!Array.isArray(kids)) kids = [kids];
    kids.forEach(function (k) {
      if (k == null || k === false) return;
      e.appendChild(typeof k === "object" ? k : document.createTextNode(String(k)));
    });
  }
  function el(tag, attrs, kids) { return put(document.createElement(tag), attrs, kids); }
  function sv(tag, attrs, kids) { return put(document.createElementNS(NS, tag), attrs, kids); }

  function num(n) { return n == null ? "n/a" : Number(n).toLocaleString("en-US"); }
  function pct(p) { return p == null ? "n/a" : (p * 100).toFixed(1) + "%"; }
  function plural(n, one, many) { return num(n) + " " + (n === 1 ? one : (many || one + "s")); }

  function section(title, id) {
    var s = el("section", { "aria-labelledby": id });
    add(s, el("h2", { id: id, text: title }));
    main.appendChild(s);
    return s;
  }
  function note(text) { return el("p", { "class": "note", text: text }); }

  function cards(list) {
    return el("div", { "class": "cards" }, list.filter(Boolean).map(function (c) {
      return el("div", { "class": "card" + (c.bad ? " bad" : ""), "data-card": c.id },
        [el("div", { "class": "v", text: c.value }), el("div", { "class": "k", text: c.label }),
          c.detail ? el("div", { "class": "d", text: c.detail }) : null]);
    }));
  }

  // ---- tooltip --------------------------------------------------------

  function showTip(text, x, y) {
    tip.textContent = text;
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.min(x + 14, window.innerWidth - w - 8);
    var top = y + 16;
    if (top + h > window.innerHeight - 8) top = y - h - 12;
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = Math.max(4, top) + "px";
  }
  function hideTip() { tip.hidden = true; }
  // hover shows text(event) at the pointer; keyboard focus shows text(null)
  // under the element.
  function hover(node, text) {
    node.addEventListener("mousemove", function (e) {
      var t = text(e);
      if (t) showTip(t, e.clientX, e.clientY); else hideTip();
    });
    node.addEventListener("mouseleave", hideTip);
    node.addEventListener("focus", function () {
      var t = text(null);
      if (!t) return;
      var r = node.getBoundingClientRect();
      showTip(t, r.left + r.width / 2, r.bottom);
    });
    node.addEventListener("blur", hideTip);
  }
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") hideTip(); });

  // ---- marks ----------------------------------------------------------

  // Timeline marks (analyze.Mark*): CSS class and words.
  var MARK = {
    ".": ["allow", "allowed"], "r": ["redundant", "redundant (allowed: a miss)"],
    "s": ["steer", "steered"], "B": ["block", "blocked"], "D": ["block", "deduped"],
    "H": ["block", "halted"], "!": ["harmful", "harmful stop"], "n": ["native", "the agent's own guard"]
  };
  var LEGEND = [["allow", "allowed"], ["steer", "steered"], ["block", "blocked, deduped or halted"],
    ["harmful", "harmful stop (hid new information)"], ["redundant", "redundant, allowed (a miss)"],
    ["native", "the agent's own guard acted"]];

  function legend(items) {
    return el("ul", { "class": "legend", "aria-label": "Legend" }, items.map(function (it) {
      return el("li", null, [el("span", { "class": "sw bg-" + it[0], "aria-hidden": "true" }), it[1]]);
    }));
  }

  function decisionKind(d) {
    if (d.harmful) return "harmful";
    if (d.native && d.action === "allow") return "native";
    if (d.action === "block" || d.action === "dedup" || d.action === "halt") return "block";
    if (d.action === "steer") return "steer";
    if (d.redundant) return "redundant";
    return "allow";
  }
  function decisionWords(d) {
    var w = d.action === "allow" ? "allowed" : d.action;
    var notes = [];
    if (d.harmful) notes.push("harmful");
    if (d.stopped_action) notes.push("stopped action");
    if (d.redundant) notes.push("redundant");
    if (d.native) notes.push("agent's guard: " + d.native);
    return notes.length ? w + " (" + notes.join(", ") + ")" : w;
  }
  function badge(d) { return el("span", { "class": "badge m-" + decisionKind(d), text: decisionWords(d) }); }

  // ---- charts ---------------------------------------------------------

  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var steps = [1, 2, 2.5, 5, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }
  function short(n) {
    var a = Math.abs(n);
    if (a >= 1e9) return (n / 1e9).toFixed(a >= 1e10 ? 0 : 1) + "G";
    if (a >= 1e6) return (n / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
    if (a >= 1e3) return (n / 1e3).toFixed(a >= 1e4 ? 0 : 1) + "k";
    return String(Math.round(n * 100) / 100);
  }

  // wholeTicks stretches an axis of counts so that its five ticks fall on
  // whole numbers (0 to 2 stones became 0, 0.4, 0.8, ...).
  function wholeTicks(lo, hi) { return lo + Math.max(5, Math.ceil((hi - lo) / 5) * 5); }

  // A chart frame: axes with five ticks each; returns the svg and scales.
  // o.xint and o.yint mark axes of counts (whole ticks); o.pad keeps the
  // plotted area that far inside the axes (bubbles off the tick labels).
  function frame(o) {
    var W = 560, H = 340, L = 64, R = o.right || 18, T = 14, B = 46, P = o.pad || 0;
    if (o.xint) o.x1 = wholeTicks(o.x0, o.x1);
    if (o.yint) o.y1 = wholeTicks(o.y0, o.y1);
    var svg = sv("svg", { viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", "aria-label": o.title, "class": "chart-svg",
      "data-xint": o.xint ? "1" : null, "data-yint": o.yint ? "1" : null });
    var x = function (v) { return L + P + (W - L - R - 2 * P) * (v - o.x0) / (o.x1 - o.x0 || 1); };
    var y = function (v) { return H - B - P - (H - T - B - 2 * P) * (v - o.y0) / (o.y1 - o.y0 || 1); };
    for (var i = 0; i <= 5; i++) {
      var xv = o.x0 + (o.x1 - o.x0) * i / 5, yv = o.y0 + (o.y1 - o.y0) * i / 5;
      if (!o.noXTicks) {
        add(svg, sv("line", { "class": "grid", x1: x(xv), x2: x(xv), y1: T, y2: H - B }));
        add(svg, sv("text", { "class": "xtick", x: x(xv), y: H - B + 16, "text-anchor": "middle", text: o.xfmt(xv) }));
      }
      add(svg, sv("line", { "class": "grid", x1: L, x2: W - R, y1: y(yv), y2: y(yv) }));
      add(svg, sv("text", { "class": "ytick", x: L - 6, y: y(yv) + 4, "text-anchor": "end", text: o.yfmt(yv) }));
    }
    add(svg, sv("path", { "class": "axis", d: "M" + L + " " + T + "V" + (H - B) + "H" + (W - R) }));
    add(svg, sv("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", text: o.xlab }));
    add(svg, sv("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle", transform: "rotate(-90 14 " + ((T + H - B) / 2) + ")", text: o.ylab }));
    return { svg: svg, x: x, y: y, W: W, H: H, L: L, R: R, T: T, B: B };
  }

  // scatter draws points {x, y, r, label, tip, front}; a dashed line joins
  // the front points in order of x.
  function scatter(o) {
    o.pad = 2 + Math.max.apply(null, o.points.map(function (p) { return p.r || 6; }).concat([6]));
    var f = frame(o);
    var front = o.points.filter(function (p) { return p.front; }).sort(function (a, b) { return a.x - b.x || b.y - a.y; });
    if (front.length > 1) {
      add(f.svg, sv("polyline", { "class": "frontline", points: front.map(function (p) { return f.x(p.x) + "," + f.y(p.y); }).join(" ") }));
    }
    // Labels move down past those already placed, so that rules with the
    // same figures (the same point) stay readable.
    var placed = [];
    function labelY(x, y) {
      for (var moved = true; moved;) {
        moved = false;
        for (var i = 0; i < placed.length; i++) {
          if (Math.abs(placed[i][0] - x) < 90 && Math.abs(placed[i][1] - y) < 12) { y = placed[i][1] + 12; moved = true; }
        }
      }
      placed.push([x, y]);
      return y;
    }
    // Big bubbles first, so that small ones stay on top and reachable.
    o.points.slice().sort(function (a, b) { return (b.r || 0) - (a.r || 0); }).forEach(function (p) {
      var c = sv("circle", { "class": "pt" + (p.front ? " front" : ""), cx: f.x(p.x), cy: f.y(p.y), r: p.r || 6,
        tabindex: "0", role: "img", "aria-label": p.tip.replace(/\n/g, "; ") });
      hover(c, function () { return p.tip; });
      add(f.svg, c);
      if (p.label) add(f.svg, sv("text", { x: f.x(p.x) + (p.r || 6) + 3, y: labelY(f.x(p.x), f.y(p.y) + 4), text: p.label }));
    });
    return el("figure", { "class": "chart" }, [el("h3", { text: o.title }), f.svg, o.caption ? el("figcaption", { "class": "note", text: o.caption }) : null]);
  }

  // bars draws one vertical bar per {label, value, tip}.
  function bars(o) {
    var max = niceMax(Math.max.apply(null, o.items.map(function (i) { return i.value; }).concat([0])));
    var f = frame({ title: o.title, x0: 0, x1: 1, y0: 0, y1: max, yint: true, xfmt: String, yfmt: short, xlab: o.xlab, ylab: o.ylab, noXTicks: true });
    var n = o.items.length, span = (f.W - f.L - f.R) / Math.max(n, 1);
    var every = Math.ceil(n / 8);
    o.items.forEach(function (it, i) {
      var x = f.L + i * span, h = f.y(0) - f.y(it.value);
      var r = sv("rect", { "class": o.cls, x: x + span * 0.1, y: f.y(it.value), width: Math.max(span * 0.8, 1), height: Math.max(h, 0),
        tabindex: "0", role: "img", "aria-label": it.tip.replace(/\n/g, "; ") });
      hover(r, function () { return it.tip; });
      add(f.svg, r);
      if (i % every === 0) add(f.svg, sv("text", { "class": "xtick", x: x + span / 2, y: f.H - f.B + 16, "text-anchor": "middle", text: it.label }));
    });
    return el("figure", { "class": "chart" }, [el("h3", { text: o.title }), f.svg]);
  }

  // ---- tables ---------------------------------------------------------

  // table builds a sortable table of rows; cols are {key, label, num, cell}.
  // Sorting is by the value key(row); show() redraws with new rows.
  function table(cols, opts) {
    opts = opts || {};
    var page = opts.page || 0, sortCol = null, dir = 1, rows = [], shown = page;
    var tbody = el("tbody");
    var heads = cols.map(function (c) {
      var th = el("th", { scope: "col", "class": c.num ? "n" : null });
      var b = el("button", { type: "button", text: c.label, onclick: function () {
        dir = sortCol === c ? -dir : (c.num ? -1 : 1);
        sortCol = c;
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
        draw(true);
      } });
      add(th, b);
      return th;
    });
    var more = el("button", { type: "button", "class": "more", hidden: true, onclick: function () { shown += page; draw(false); } });
    var t = el("table", opts.id ? { id: opts.id } : null, [opts.caption ? el("caption", { "class": "note", text: opts.caption }) : null,
      el("thead", null, el("tr", null, heads)), tbody]);
    function value(r, c) { var v = c.key(r); return v == null ? (c.num ? -Infinity : "") : v; }
    function draw(reset) {
      if (sortCol) {
        rows.sort(function (a, b) {
          var x = value(a, sortCol), y = value(b, sortCol);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
      }
      if (reset) shown = page;
      var n = page ? Math.min(shown, rows.length) : rows.length;
      tbody.textContent = "";
      var frag = document.createDocumentFragment();
      for (var i = 0; i < n; i++) {
        var r = rows[i];
        frag.appendChild(el("tr", null, cols.map(function (c) {
          var v = c.cell ? c.cell(r) : c.key(r);
          return el("td", { "class": c.num ? "n" : c.cls || null }, typeof v === "object" && v !== null ? v : String(v == null ? "" : v));
        })));
      }
      tbody.appendChild(frag);
      more.hidden = !(page && n < rows.length);
      more.textContent = "Show " + num(Math.min(page, rows.length - n)) + " more (" + num(rows.length - n) + " left)";
      if (opts.onDraw) opts.onDraw(n, rows.length);
    }
    return {
      el: el("div", null, [el("div", { "class": "scroll" }, t), more]),
      show: function (r) { rows = r.slice(); draw(true); }
    };
  }

  // ---- replay ---------------------------------------------------------

  function replay() {
    var s = D.summary, rest = D.rest;
    add(main, cards([
      { id: "calls", label: "calls", value: num(s.calls), detail: plural(s.sessions, "session") },
      { id: "stops", label: "stops", value: num(s.stopped), detail: num(s.blocked) + " blocked, " + num(s.deduped) + " deduped, " + num(s.halted) + " halted; " + num(s.steered) + " steered" },
      { id: "harmful", label: "harmful stops", value: num(s.harmful), bad: s.harmful > 0, detail: "would have hidden new information" },
      // Shown when the report counts stopped actions (reports written
      // before it did have no such field).
      s.stopped_actions == null ? null : { id: "stopped-actions", label: "stopped actions", value: num(s.stopped_actions), bad: s.stopped_actions > 0, detail: "side effects the guard prevented" },
      { id: "precision", label: "precision", value: pct(s.precision), detail: "stops that were right" },
      { id: "recall", label: "recall", value: pct(s.recall), detail: num(s.redundant_stopped) + " of " + num(s.redundant) + " redundant calls stopped" },
      { id: "tokens", label: "tokens saved", value: num(s.tokens_saved), detail: num(s.context_tokens_saved) + " with re-sends" }
    ]));

    var days = section("Stops and tokens saved per day", "h-days");
    // Days of one year are written without it; across years, whole.
    var dayLabel = function (d) { return d.slice(5); };
    if (D.days.length && D.days[0].day.slice(0, 4) !== D.days[D.days.length - 1].day.slice(0, 4)) dayLabel = function (d) { return d; };
    if (D.days.length) {
      add(days, el("div", { "class": "charts" }, [
        bars({ title: "Stops per day", cls: "bar-stops", xlab: "day the session started (UTC)", ylab: "stops", items: D.days.map(function (d) {
          return { label: dayLabel(d.day), value: d.stops, tip: d.day + "\n" + plural(d.stops, "stop") + " (" + num(d.harmful) + " harmful)\n" + plural(d.sessions, "session") };
        }) }),
        bars({ title: "Tokens saved per day", cls: "bar-saved", xlab: "day the session started (UTC)", ylab: "tokens saved", items: D.days.map(function (d) {
          return { label: dayLabel(d.day), value: d.tokens_saved, tip: d.day + "\n" + num(d.tokens_saved) + " tokens saved\n" + plural(d.sessions, "session") };
        }) })
      ]));
      var timed = D.days.reduce(function (n, d) { return n + d.sessions; }, 0);
      add(days, note("Each session counts on the day it started (UTC)." + (timed < s.sessions ?
        " " + plural(s.sessions - timed, "session") + " whose transcripts record no time are not counted here." : "")));
    } else {
      add(days, note("No session in this report has a start time (its transcripts record none), so stops and savings are not shown per day."));
    }

    var tl = section("Sessions", "h-sessions");
    add(tl, legend(LEGEND));
    var restText = rest.sessions > 0 ?
      "Showing the top " + plural(D.sessions.length, "session") + " of " + num(s.sessions) +
      ", ranked by harmful stops, then stops, steers, redundant calls and tokens saved. The other " + plural(rest.sessions, "session") +
      " are aggregated: " + plural(rest.calls, "call") + ", " + plural(rest.stopped, "stop") + ", " + num(rest.steered) + " steered, " +
      num(rest.harmful) + " harmful, " + num(rest.redundant) + " redundant, " + num(rest.tokens_saved) + " tokens saved." :
      "All " + plural(s.sessions, "session") + ", ranked by harmful stops, then stops, steers, redundant calls and tokens saved.";
    add(tl, note(restText + " Each mark is one call; hover or focus a timeline and use the arrow keys to step through its decisions, Enter to list them below."));
    var decIndex = {};
    D.decisions.forEach(function (d) { decIndex[d.session + ":" + d.call] = d; });
    var grid = el("div", { "class": "tl", id: "timelines" });
    // The first timelines are drawn at once, the others on request: a
    // page of hundreds of long sessions still opens quickly.
    var drawn = 0, first = 40;
    var moreTl = el("button", { type: "button", "class": "more", id: "more-timelines", onclick: function () { drawTimelines(D.sessions.length); } });
    function drawTimelines(upto) {
      for (; drawn < Math.min(upto, D.sessions.length); drawn++) timeline(grid, D.sessions[drawn], drawn, decIndex);
      moreTl.hidden = drawn >= D.sessions.length;
      moreTl.textContent = "Show the other " + plural(D.sessions.length - drawn, "timeline");
    }
    drawTimelines(first);
    add(tl, [grid, moreTl]);
    if (!D.sessions.length) add(tl, note("No session to show."));

    var tools = section("Tools", "h-tools");
    add(tools, toolBars());

    var ds = section("Decisions", "h-decisions");
    decisionsTable(ds);

    var ps = section("Input problems", "h-problems");
    if (!D.problems.length) add(ps, note("None: every line read was part of a session."));
    else {
      add(ps, el("ul", { "class": "problems" }, D.problems.map(function (p) {
        return el("li", { text: (p.file || "") + (p.line ? ":" + p.line : "") + ": " + p.message });
      })));
      if (rest.problems > 0) add(ps, note(plural(rest.problems, "more problem") + " not listed (see the JSON report)."));
    }
  }

  function timeline(grid, ss, si, decIndex) {
    var runs = [], n = 0, re = /(\D)(\d+)/g, m;
    while ((m = re.exec(ss.marks))) { runs.push([m[1], n, +m[2]]); n += +m[2]; }
    var marks = new Array(n);
    runs.forEach(function (r) { for (var i = 0; i < r[2]; i++) marks[r[1] + i] = r[0]; });
    var name = ss.selector || ss.id || ss.file;
    var lab = el("div", { "class": "lab", title: ss.file + (ss.started_at ? ", started " + ss.started_at : "") }, [name + " ", el("small", { text: ss.agent + " · " + plural(ss.calls, "call") + (ss.stopped ? " · " + num(ss.stopped) + " stopped" : "") + (ss.harmful ? " · " + num(ss.harmful) + " harmful" : "") })]);
    // At most 8 pixels a call: a short session stays short.
    var svg = sv("svg", { viewBox: "0 0 " + Math.max(n, 1) + " 10", preserveAspectRatio: "none", tabindex: "0", role: "img", "data-session": si,
      style: "width: min(100%, " + Math.max(n, 1) * 8 + "px)",
      "aria-label": "Timeline of " + name + ": " + plural(ss.calls, "call") + ", " + num(ss.stopped) + " stopped, " + num(ss.steered) + " steered, " + num(ss.harmful) + " harmful. Arrow keys step through its decisions; Enter lists them." });
    add(svg, sv("rect", { "class": "m-allow", x: 0, y: 0, width: Math.max(n, 1), height: 10 }));
    var minW = n / 300;
    runs.forEach(function (r) {
      if (r[0] === ".") return;
      add(svg, sv("rect", { "class": "m-" + MARK[r[0]][0], x: r[1], y: 0, width: Math.max(r[2], minW), height: 10 }));
    });
    var cursor = sv("rect", { "class": "cursor", x: 0, y: 0.5, width: Math.max(minW, 1), height: 9, "vector-effect": "non-scaling-stroke", visibility: "hidden" });
    add(svg, cursor);
    var at = -1;
    function describe(i) {
      if (i < 0 || i >= n) return "";
      var first = i * ss.per_mark + 1, last = Math.min((i + 1) * ss.per_mark, ss.calls);
      var d = null;
      for (var c = first; c <= last; c++) {
        var x = decIndex[si + ":" + c];
        if (x && (!d || weight(x) > weight(d))) d = x;
      }
      var head = name + " · call " + (first === last ? first : first + "–" + last);
      if (!d) return head + "\n" + MARK[marks[i]][1] + (marks[i] !== "." ? " (decision not listed)" : "");
      var lines = [head + (d.call !== first || first !== last ? " (call " + d.call + ")" : "") + ", turn " + d.turn,
        decisionWords(d) + (d.detector ? " by " + d.detector + (d.count ? " (count " + d.count + ")" : "") : ""),
        "tool: " + d.tool + (d.class ? " [" + d.class + "]" : ""),
        "args: " + d.args];
      if (d.repeats) lines.push("repeats call " + d.repeats);
      if (d.tokens_saved) lines.push("tokens saved: " + num(d.tokens_saved));
      if (d.message) lines.push("message: " + d.message);
      return lines.join("\n");
    }
    function weight(d) { return d.harmful ? 5 : decisionKind(d) === "block" ? 4 : d.action === "steer" ? 3 : d.redundant ? 2 : 1; }
    function place(i) {
      at = i;
      cursor.setAttribute("x", i);
      cursor.setAttribute("visibility", "visible");
      var r = svg.getBoundingClientRect();
      showTip(describe(i), r.left + r.width * (i + 0.5) / n, r.bottom);
    }
    hover(svg, function (e) {
      if (!e) return at >= 0 ? describe(at) : "";
      var r = svg.getBoundingClientRect();
      return describe(Math.floor((e.clientX - r.left) / r.width * n));
    });
    svg.addEventListener("focus", function () { if (at < 0) { var j = marks.findIndex(function (k) { return k !== "."; }); if (j >= 0) place(j); } });
    svg.addEventListener("blur", function () { cursor.setAttribute("visibility", "hidden"); });
    svg.addEventListener("keydown", function (e) {
      var step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (step) {
        e.preventDefault();
        for (var j = at + step; j >= 0 && j < n; j += step) if (marks[j] !== ".") { place(j); return; }
      } else if (e.key === "Home" || e.key === "End") {
        e.preventDefault(); place(e.key === "Home" ? 0 : n - 1);
      } else if (e.key === "Enter") {
        e.preventDefault(); filterSession(si);
      }
    });
    svg.addEventListener("click", function () { filterSession(si); });
    add(grid, [lab, svg]);
  }

  function toolBars() {
    var tools = D.tools;
    if (!tools.length) return note("No tool calls.");
    var max = Math.max.apply(null, tools.map(function (t) { return t.calls; }));
    // Drawn at about its natural size (900 wide): the labels stay the
    // size of the text around them.
    var W = 600, L = 170, row = 22, H = tools.length * row + 8;
    var svg = sv("svg", { viewBox: "0 0 900 " + H, width: "100%", style: "max-width: 900px", role: "img", "aria-label": "Calls per tool, with what the guard did to them", id: "tool-bars" });
    tools.forEach(function (t, i) {
      var y = 4 + i * row, w = function (v) { return (W - L) * v / max; };
      var stopped = t.blocked + t.deduped, x = L;
      add(svg, sv("text", { x: L - 6, y: y + 14, "text-anchor": "end", text: t.tool.length > 26 ? t.tool.slice(0, 25) + "…" : t.tool }));
      var g = sv("g", { tabindex: "0", role: "img", "aria-label": t.tool });
      add(g, sv("rect", { "class": "m-allow", x: L, y: y + 2, width: Math.max(w(t.calls), 1), height: row - 6 }));
      [["harmful", t.harmful], ["block", stopped - t.harmful], ["steer", t.steered]].forEach(function (seg) {
        if (seg[1] <= 0) return;
        add(g, sv("rect", { "class": "m-" + seg[0], x: x, y: y + 2, width: Math.max(w(seg[1]), 1), height: row - 6 }));
        x += w(seg[1]);
      });
      if (t.redundant > 0) add(g, sv("rect", { "class": "m-redundant", x: L, y: y + row - 6, width: Math.max(w(t.redundant), 1), height: 3 }));
      var text = t.tool + (t.class ? " [" + t.class + "]" : "") + "\n" + plural(t.calls, "call") + ", " + num(t.redundant) + " redundant\n" +
        num(t.steered) + " steered, " + num(t.blocked) + " blocked, " + num(t.deduped) + " deduped, " + num(t.harmful) + " harmful\n" + num(t.tokens_saved) + " tokens saved";
      g.setAttribute("aria-label", text.replace(/\n/g, "; "));
      hover(g, function () { return text; });
      add(svg, g);
      add(svg, sv("text", { x: L + w(t.calls) + 6, y: y + 14, text: num(t.calls) + " calls · " + num(stopped) + " stopped · " + num(t.steered) + " steered · " + num(t.harmful) + " harmful" }));
    });
    var out = [legend([["allow", "calls"], ["harmful", "harmful stops"], ["block", "other stops"], ["steer", "steered"], ["redundant", "redundant (thin line)"]]), svg];
    if (D.tools_rest.tools > 0) out.push(note(plural(D.tools_rest.tools, "more tool") + " with " + plural(D.tools_rest.calls, "call") + " not drawn."));
    return el("div", null, out);
  }

  var decisionState = null;
  function filterSession(si) {
    if (!decisionState) return;
    decisionState.session.value = String(si);
    decisionState.apply();
    document.getElementById("h-decisions").scrollIntoView();
    decisionState.search.focus();
  }

  function decisionsTable(sec) {
    var search = el("input", { type: "search", id: "dsearch", placeholder: "Search tool, arguments, detector, message", "aria-label": "Search decisions" });
    var show = el("select", { id: "dfilter", "aria-label": "Show decisions" }, [
      ["all", "all decisions"], ["harmful", "harmful stops"], ["block", "stops (block, dedup, halt)"], ["steer", "steered"],
      ["redundant", "redundant"], ["action", "stopped actions"], ["native", "the agent's own guard"]].map(function (o) { return el("option", { value: o[0], text: o[1] }); }));
    var session = el("select", { id: "dsession", "aria-label": "Session" }, [el("option", { value: "", text: "all sessions" })].concat(
      D.sessions.map(function (ss, i) { return el("option", { value: String(i), text: (ss.selector || ss.id || ss.file) }); })));
    var count = el("p", { "class": "note", id: "dcount", "aria-live": "polite" });
    add(sec, el("div", { "class": "controls" }, [search, show, session]));
    var listed = D.decisions.length;
    var caption = D.rest.decisions > 0 ? "The page lists " + num(listed) + " of the report's " + num(D.decisions_total) +
      " decisions: those of the sessions shown above, the most telling first (harmful, stops, steers, redundant). The JSON report has them all." : "";
    if (caption) add(sec, note(caption));
    add(sec, count);
    var sname = function (d) { var ss = D.sessions[d.session]; return ss ? (ss.selector || ss.id || ss.file) : ""; };
    var t = table([
      { label: "Session", key: sname, cell: function (d) { var v = sname(d); return el("span", { title: D.sessions[d.session].file, text: v.length > 18 ? v.slice(0, 17) + "…" : v }); } },
      { label: "Call", num: true, key: function (d) { return d.call; } },
      { label: "Turn", num: true, key: function (d) { return d.turn; } },
      { label: "Tool", key: function (d) { return d.tool; } },
      { label: "Action", key: function (d) { return decisionWords(d); }, cell: badge },
      { label: "Detector", key: function (d) { return d.detector + (d.count ? " ×" + d.count : ""); } },
      { label: "Arguments", key: function (d) { return d.args; }, cls: "args" },
      { label: "Tokens saved", num: true, key: function (d) { return d.tokens_saved; }, cell: function (d) { return num(d.tokens_saved); } },
      { label: "Line", num: true, key: function (d) { return d.line; } }
    ], { page: 200, id: "decisions", onDraw: function (n, total) {
      count.textContent = "Showing " + num(n) + " of " + plural(total, "matching decision") + ".";
    } });
    add(sec, t.el);
    var text = D.decisions.map(function (d) { return [d.tool, d.class, d.args, d.detector, d.message, d.action, d.native || "", sname(d)].join("\u0000").toLowerCase(); });
    function apply() {
      var q = search.value.trim().toLowerCase(), f = show.value, sid = session.value;
      t.show(D.decisions.filter(function (d, i) {
        if (sid !== "" && String(d.session) !== sid) return false;
        if (f !== "all") {
          if (f === "harmful" && !d.harmful) return false;
          if (f === "block" && decisionKind(d) !== "block" && !d.harmful) return false;
          if (f === "steer" && d.action !== "steer") return false;
          if (f === "redundant" && !d.redundant) return false;
          if (f === "native" && !d.native) return false;
          if (f === "action" && !d.stopped_action) return false;
        }
        return !q || text[i].indexOf(q) >= 0;
      }));
    }
    search.addEventListener("input", apply);
    show.addEventListener("change", apply);
    session.addEventListener("change", apply);
    decisionState = { session: session, search: search, apply: apply };
    apply();
  }

  // ---- compare --------------------------------------------------------

  var TUNING_COLS = [
    { label: "Steered", num: true, key: function (r) { return r.summary.steered; }, cell: function (r) { return num(r.summary.steered); } },
    { label: "Blocked", num: true, key: function (r) { return r.summary.blocked; }, cell: function (r) { return num(r.summary.blocked); } },
    { label: "Deduped", num: true, key: function (r) { return r.summary.deduped; }, cell: function (r) { return num(r.summary.deduped); } },
    { label: "Halted", num: true, key: function (r) { return r.summary.halted; }, cell: function (r) { return num(r.summary.halted); } },
    { label: "Harmful", num: true, key: function (r) { return r.summary.harmful; }, cell: function (r) { return num(r.summary.harmful); } },
    { label: "Precision", num: true, key: function (r) { return r.summary.precision; }, cell: function (r) { return pct(r.summary.precision); } },
    { label: "Recall", num: true, key: function (r) { return r.summary.recall; }, cell: function (r) { return pct(r.summary.recall); } },
    { label: "Tokens saved", num: true, key: function (r) { return r.summary.tokens_saved; }, cell: function (r) { return num(r.summary.tokens_saved); } },
    { label: "Context saved", num: true, key: function (r) { return r.summary.context_tokens_saved; }, cell: function (r) { return num(r.summary.context_tokens_saved); } }
  ];

  function corpusCards(c) {
    return cards([{ id: "files", label: "files", value: num(c.files) }, { id: "sessions", label: "sessions", value: num(c.sessions) },
      { id: "calls", label: "calls", value: num(c.calls) }, { id: "redundant", label: "redundant calls", value: num(c.redundant), detail: "the same for every row" },
      { id: "problems", label: "input problems", value: num(c.problems), bad: c.problems > 0 }]);
  }

  function summaryTip(name, s) {
    return name + "\nprecision " + pct(s.precision) + ", recall " + pct(s.recall) + "\n" + num(s.blocked + s.deduped + s.halted) +
      " stopped (" + num(s.harmful) + " harmful), " + num(s.steered) + " steered\n" + num(s.tokens_saved) + " tokens saved (" + num(s.context_tokens_saved) + " with re-sends)";
  }

  function compare() {
    add(main, corpusCards(D.corpus));
    var sec = section("Precision against recall", "h-chart");
    var maxSaved = Math.max.apply(null, D.rows.map(function (r) { return r.summary.tokens_saved; }).concat([1]));
    var plotted = D.rows.filter(function (r) { return r.summary.precision != null && r.summary.recall != null; });
    var missing = D.rows.filter(function (r) { return r.summary.precision == null || r.summary.recall == null; });
    add(sec, el("div", { "class": "charts" }, scatter({
      title: "Rules: precision against recall (bubble area: tokens saved)", right: 110, x0: 0, x1: 1, y0: 0, y1: 1, xfmt: pct, yfmt: pct,
      xlab: "precision (stops that were right)", ylab: "recall (redundant calls stopped)",
      points: plotted.map(function (r) {
        return { x: r.summary.precision, y: r.summary.recall, r: 4 + 26 * Math.sqrt(Math.max(r.summary.tokens_saved, 0) / maxSaved), label: r.label, tip: summaryTip(r.label, r.summary) };
      }),
      caption: "Top right is best: every stop right and every redundant call stopped. A bigger bubble saved more tokens."
    })));
    if (missing.length) add(sec, note("Not plotted (precision or recall is n/a: nothing stopped, or no redundant call): " + missing.map(function (r) { return r.label; }).join(", ") + "."));
    var ts = section("Rules side by side", "h-table");
    var cols = [{ label: "Rules", key: function (r) { return r.label; }, cell: function (r) { return el("span", { title: r.source, text: r.label }); } }];
    // Rows from several groups (loopgate's own, seed designs, shipped
    // guards, rules files) show their group; sorting by it groups them.
    var groups = {};
    D.rows.forEach(function (r) { groups[r.group || ""] = true; });
    if (Object.keys(groups).length > 1) {
      var order = {};
      D.rows.forEach(function (r, i) { if (!(r.group in order)) order[r.group] = i; });
      cols.unshift({ label: "Group", key: function (r) { return order[r.group]; }, cell: function (r) { return r.group || ""; } });
    }
    var t = table(cols.concat(TUNING_COLS), { id: "rows" });
    add(ts, t.el);
    t.show(D.rows);
  }

  // ---- sweep ----------------------------------------------------------

  function sweep() {
    add(main, corpusCards(D.corpus));
    var sec = section("The Pareto front", "h-chart");
    add(sec, legend([["point", "a setting"], ["pt-front", "on the front (no other setting does better on both axes)"], ["front", "the front, joined"]]));
    function settingText(r) { return r.settings.map(function (s) { return s.key + " = " + s.value; }).join("\n"); }
    function pts(y, frontKey) {
      return D.rows.map(function (r) {
        return { x: r.summary.harmful, y: y(r), front: r[frontKey], tip: settingText(r) + "\n" + summaryTip(r[frontKey] ? "on the front" : "not on the front", r.summary) };
      });
    }
    var maxHarm = niceMax(Math.max.apply(null, D.rows.map(function (r) { return r.summary.harmful; }).concat([0])));
    var maxSaved = niceMax(Math.max.apply(null, D.rows.map(function (r) { return r.summary.context_tokens_saved; }).concat([0])));
    add(sec, el("div", { "class": "charts" }, [
      scatter({ title: "Recall against harmful stops", x0: 0, x1: maxHarm, xint: true, y0: 0, y1: 1, xfmt: short, yfmt: pct, xlab: "harmful stops (fewer is better)", ylab: "recall",
        points: pts(function (r) { return r.summary.recall == null ? 0 : r.summary.recall; }, "recall_front"),
        caption: "Front: no other setting has a higher recall with as few harmful stops. Settings with recall n/a are drawn at 0." }),
      scatter({ title: "Tokens saved against harmful stops", x0: 0, x1: maxHarm, xint: true, y0: 0, y1: maxSaved, yint: true, xfmt: short, yfmt: short, xlab: "harmful stops (fewer is better)", ylab: "context tokens saved",
        points: pts(function (r) { return r.summary.context_tokens_saved; }, "pareto"),
        caption: "Front (the sweep's Pareto column): no other setting saves more with as few harmful stops." })
    ]));
    var ts = section("Settings", "h-table");
    var keys = D.rows.length ? D.rows[0].settings.map(function (s) { return s.key; }) : [];
    var t = table([{ label: "Front", key: function (r) { return (r.pareto ? 2 : 0) + (r.recall_front ? 1 : 0); }, cell: function (r) {
      return r.pareto || r.recall_front ? "★ " + [r.pareto ? "savings" : "", r.recall_front ? "recall" : ""].filter(Boolean).join(", ") : ""; } }].concat(
      keys.map(function (k, i) { return { label: k, key: function (r) { var v = r.settings[i].value; return isNaN(+v) ? v : +v; }, cell: function (r) { return r.settings[i].value; } }; }), TUNING_COLS), { id: "rows", page: 500 });
    add(ts, t.el);
    t.show(D.rows);
  }

  // ---- gate -----------------------------------------------------------

  // diffLine marks the middle where a and b differ (common prefix and
  // suffix kept plain).
  function diffLine(sign, a, b, tag) {
    var p = 0;
    while (p < a.length && p < b.length && a[p] === b[p]) p++;
    var s = 0;
    while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    return el("div", null, [sign + " " + a.slice(0, p), el(tag, { text: a.slice(p, a.length - s) }), a.slice(a.length - s)]);
  }

  function gate() {
    var failed = D.cases.filter(function (c) { return !c.passed; }).length;
    add(main, cards([{ id: "cases", label: "cases", value: num(D.cases.length) }, { id: "passed", label: "passed", value: num(D.cases.length - failed) },
      { id: "failed", label: "failed", value: num(failed), bad: failed > 0 }]));
    var sec = section("Cases", "h-cases");
    var only = el("input", { type: "checkbox", id: "onlyfailed" });
    add(sec, el("div", { "class": "controls" }, el("label", null, [only, " show failed cases only"])));
    var list = el("div", { id: "cases" });
    add(sec, list);
    D.cases.forEach(function (c) {
      var box = el("article", { "class": "case", "data-passed": c.passed ? "true" : "false" });
      add(box, el("h3", null, [el("span", { "class": "badge " + (c.passed ? "pass" : "fail"), text: c.passed ? "PASS" : "FAIL" }), " " + c.name]));
      add(box, note("Rules " + c.rules + " · " + plural(c.sessions, "session") + ", " + plural(c.calls, "call") + ": " + num(c.blocked) + " blocked, " +
        num(c.steered) + " steered, " + num(c.deduped) + " deduped, " + num(c.harmful) + " harmful" +
        (c.snapshot_missing ? " · no snapshot yet: checked on its expectations only" : "") + (c.snapshot_written ? " · snapshot written" : "")));
      if (c.failures.length) {
        add(box, el("table", null, [el("thead", null, el("tr", null, ["Kind", "Where", "Expected / actual"].map(function (h) { return el("th", { scope: "col", text: h }); }))),
          el("tbody", null, c.failures.map(function (f) {
            var where = D.file + ":" + f.gate_line + (f.file ? "\n" + f.file + (f.line ? ":" + f.line : "") : "");
            var what = f.expected || f.actual ? el("div", { "class": "diff" }, [el("div", { text: f.message }), diffLine("−", f.expected || "", f.actual || "", "del"), diffLine("+", f.actual || "", f.expected || "", "ins")]) : f.message;
            return el("tr", { "class": "failure" }, [el("td", { text: f.kind + (f.field ? " (" + f.field + ")" : "") }), el("td", { text: where, style: "white-space: pre-line" }), el("td", null, what)]);
          }))]));
      }
      add(list, box);
    });
    only.addEventListener("change", function () {
      Array.prototype.forEach.call(list.children, function (b) { b.hidden = only.checked && b.getAttribute("data-passed") === "true"; });
    });
  }

  ({ replay: replay, compare: compare, sweep: sweep, gate: gate }[kind] || function () { add(main, note("Unknown page kind.")); })();
  // How long the page took to draw (the browser test reports it).
  window.loopgateDrawMs = performance.now() - started;
  document.body.setAttribute("data-ready", "true");
})();
