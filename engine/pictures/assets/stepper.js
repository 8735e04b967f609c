
(function () {
"use strict";
var D = JSON.parse(document.getElementById("stepper-data").textContent);
var N = D.parent.length, E = D.steps.length, LAST = E + 1;
var kids = [], depth = new Array(N), path = new Array(N), size = new Array(N);
var i, j;
for (i = 0; i < N; i++) kids.push([]);
for (i = 1; i < N; i++) kids[D.parent[i]].push(i);
depth[0] = 0; path[0] = "";
// Parents come before their children in the node table (ids grow as nodes are met).
for (i = 1; i < N; i++) {
  var up = D.parent[i];
  depth[i] = depth[up] + 1;
  path[i] = (path[up] === "" ? "" : path[up] + ".") + kids[up].indexOf(i);
}
for (i = N - 1; i >= 0; i--) { size[i] = 1; }
for (i = N - 1; i > 0; i--) { size[D.parent[i]] += size[i]; }
var SMALL = N <= 160;
var chosen = {}; D.chosen.forEach(function (n) { chosen[n] = true; });
var byName = {};
for (i = 0; i < N; i++) { byName[path[i]] = i; if (D.label && D.label[i]) byName[D.label[i]] = i; }

var step = 0, timer = null, mode = "step";
var userOpen = {}, userClosed = {}, rendered = [], elements = {}, lastChain = "";
var against = D.against, agreed = {};
if (against) against.agreed_nodes.forEach(function (n) { agreed[n] = true; });
var moved = against && against.move ? against.move : null;

function $(sel) { return document.querySelector(sel); }
function esc(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
function show(b) { return b === null || b === undefined ? "" : b === "inf" ? "\u221e" : b === "-inf" ? "\u2212\u221e" : String(b); }
function attr(b) { return b === null || b === undefined ? "" : String(b); }
function name(n) { return (D.label && D.label[n]) || (D.moves && D.moves[n]) || (n === 0 ? "the root" : path[n]); }
function role(n) { return D.max[n] ? "MAX" : "MIN"; }
function isLeafNode(n) {
  if (D.enter[n] >= 0) return D.kind[n] !== "i";
  return kids[n].length === 0;
}
function nodeAt(s) { return s >= 1 && s <= E ? D.step_node[s - 1] : -1; }

// --- what a node shows at step s (recorded facts only) ---------------------------
function stateOf(n, s) {
  if (nodeAt(s) === n) return "current";
  var e = D.enter[n];
  if (e < 0 || s < e) return D.pruned[n] >= 0 && s >= D.pruned[n] ? "pruned" : "unvisited";
  return s < D.leave[n] ? "open" : "done";
}
function windowOf(n, s) {
  var e = D.enter[n];
  if (e < 0 || s < e) return [null, null];
  if (s >= D.leave[n]) return [D.alpha[n], D.beta[n]];
  var w = [D.alpha_in[n], D.beta_in[n]], ks = kids[n];
  for (var k = 0; k < ks.length; k++) {
    var c = ks[k];
    if (D.enter[c] < 0 || D.leave[c] > s) break;
    w = [D.after_alpha[c], D.after_beta[c]];
  }
  return w;
}
function valueOf(n, s) { return D.enter[n] >= 0 && s >= D.leave[n] ? D.value[n] : null; }

// --- the tree ----------------------------------------------------------------------
function chainOf(n) { var c = []; while (n >= 0) { c.push(n); n = D.parent[n]; } return c; }
var focusChain = {};
function isOpen(n) {
  if (userClosed[n]) return false;
  if (userOpen[n] || SMALL || n === 0) return true;
  return !!focusChain[n];
}
function boardHtml(b) {
  var rows = b.split("/");
  var h = '<div class="grid" style="grid-template-columns:repeat(' +
    Math.max(1, rows[0].length) + ', 13px)">';
  rows.forEach(function (row) {
    for (var k = 0; k < row.length; k++) {
      var m = row.charAt(k);
      h += '<span class="' + (m === "x" ? "x" : m === "o" ? "o" : "") + '">' +
        (m === "x" || m === "o" ? esc(m) : m === "-" || m === "." ? "" : esc(m)) + "</span>";
    }
  });
  return h + "</div>";
}
function nodeHtml(n, quiz) {
  var leaf = isLeafNode(n), cls = "nd " + (D.max[n] ? "max" : "min") + (leaf ? " leaf" : "") +
    (D.board && D.board[n] ? " board" : "");
  var h = '<div class="' + cls + '" data-node="' + esc(path[n]) + '" data-id="' + n + '">';
  var lab = D.label && D.label[n];
  h += lab ? '<div class="lb">' + esc(lab) + "</div>" : '<div class="lb path">' + esc(path[n] === "" ? "root" : path[n]) + "</div>";
  if (D.board && D.board[n]) {
    h += '<i class="role"></i><div class="sh">' + boardHtml(D.board[n]) + '<span class="v"></span></div><div class="bv"></div>';
  } else {
    h += '<div class="sh"><span class="v"></span></div>';
  }
  if (quiz) {
    if (!leaf) h += '<input data-quiz="value" placeholder="value" aria-label="value of ' + esc(name(n)) + '">';
    if (D.prune) h += '<div class="qab"><input data-quiz="alpha" placeholder="\u03b1" aria-label="alpha"><input data-quiz="beta" placeholder="\u03b2" aria-label="beta"></div>';
  } else {
    h += '<div class="ab"></div>';
  }
  return h + "</div>";
}
function liHtml(n, quiz) {
  var h = '<li class="' + (chosen[n] && !quiz ? "best" : "") + '"><span class="up"></span>';
  rendered.push(n);
  h += nodeHtml(n, quiz);
  if (kids[n].length) {
    if (quiz || isOpen(n)) {
      if (!quiz && !SMALL) h += '<button type="button" class="tg opened" data-toggle="' + n + '" title="close this subtree">\u25be</button>';
      h += "<ul>";
      kids[n].forEach(function (c) { h += liHtml(c, quiz); });
      h += "</ul>";
    } else {
      h += '<button type="button" class="tg" data-toggle="' + n + '" title="open this subtree">\u25b8 ' + (size[n] - 1) + " node" + (size[n] === 2 ? "" : "s") + "</button>";
    }
  }
  return h + "</li>";
}
function renderTree() {
  rendered = []; elements = {};
  var box = $("#tree");
  box.classList.toggle("small", N <= 40);
  box.innerHTML = '<ul class="tree">' + liHtml(0, mode === "quiz") + "</ul>";
  var all = box.querySelectorAll(".nd");
  for (var k = 0; k < all.length; k++) elements[all[k].getAttribute("data-id")] = all[k];
}

function setAttr(el, key, v) { if (el.getAttribute(key) !== v) el.setAttribute(key, v); }
function paint() {
  var s = step, cur = nodeAt(s);
  for (var k = 0; k < rendered.length; k++) {
    var n = rendered[k], el = elements[n];
    var st = stateOf(n, s), w = windowOf(n, s), v = valueOf(n, s);
    setAttr(el, "data-state", st);
    el.parentNode.classList.toggle("pr", st === "pruned" && D.enter[D.parent[n]] >= 0);
    setAttr(el, "data-value", attr(v));
    setAttr(el, "data-alpha", attr(w[0]));
    setAttr(el, "data-beta", attr(w[1]));
    var vt = v !== null ? show(v) : "", given = false;
    if (v === null && D.given && D.given[n] !== null && D.given[n] !== undefined) { vt = show(D.given[n]); given = true; }
    var ve = el.querySelector(el.classList.contains("board") ? ".bv" : ".v");
    if (ve.textContent !== vt) ve.textContent = vt;
    ve.classList.toggle("given", given);
    var ab = el.querySelector(".ab");
    var abt = D.prune && w[0] !== null ? '\u03b1 ' + show(w[0]) + '  \u03b2 ' + show(w[1]) : "";
    if (ab.textContent !== abt) ab.textContent = abt;
    el.classList.toggle("best", s === LAST && !!chosen[n]);
    el.classList.toggle("agreed", !!agreed[n] && s >= D.leave[n]);
    if (against && n === against.node) el.setAttribute("data-diverge", "expected");
    else if (against && n === against.student_node) el.setAttribute("data-diverge", "student");
    if (moved && moved.differs && n === moved.student) el.setAttribute("data-move", "yours");
  }
  if (cur >= 0 && elements[cur]) reveal(elements[cur]);
}
function reveal(el) {
  var box = $("#tree"), b = box.getBoundingClientRect(), r = el.getBoundingClientRect();
  if (r.left < b.left || r.right > b.right) box.scrollLeft += (r.left + r.right) / 2 - (b.left + b.right) / 2;
  if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += (r.top + r.bottom) / 2 - (b.top + b.bottom) / 2;
}

// --- the words -----------------------------------------------------------------------
function windowText(w) { return D.prune ? "\u03b1 = " + show(w[0]) + ", \u03b2 = " + show(w[1]) : ""; }
function skippedOf(n) { return kids[n].filter(function (c) { return D.enter[c] < 0; }); }
function cutReason(n) {
  var v = D.value[n], list = skippedOf(n).map(function (c) { return (D.label && D.label[c]) || path[c]; }).join(", ");
  var why = D.max[n] ? "MAX node: " + show(v) + " >= beta " + show(D.beta[n])
                     : "MIN node: " + show(v) + " <= alpha " + show(D.alpha[n]);
  return why + ", the remaining children are pruned (" + list + ").";
}
function sayStep(s) {
  if (s === 0) return "Before the search: it starts at " + name(0) + " (" + role(0) + ")" +
    (D.prune ? " with \u03b1 = \u2212\u221e, \u03b2 = \u221e" : "") + ".";
  if (s === LAST) {
    var tops = [];
    for (var k = 0; k < N; k++) if (D.enter[k] < 0 && D.enter[D.parent[k]] >= 0) tops.push((D.label && D.label[k]) || path[k]);
    var best = D.chosen.length ? name(D.chosen[0]) : "none";
    var seen = 0; for (k = 0; k < N; k++) if (D.enter[k] >= 0) seen++;
    return "Search finished: value " + show(D.value[0]) + ", best move " + best + "." +
      (D.prune ? " Pruned: " + (tops.length ? tops.join(", ") : "none") + "." : "") +
      " Visited " + seen + (seen === N ? "" : " of " + N) + " nodes.";
  }
  var n = nodeAt(s), kind = D.steps.charAt(s - 1);
  if (kind === "e") return "Enter " + name(n) + " (" + role(n) + ", depth " + depth[n] + ")" +
    (D.prune ? " with " + windowText([D.alpha_in[n], D.beta_in[n]]) : "") + ".";
  if (kind === "c") return "Cut at " + name(n) + ". " + cutReason(n);
  var k2 = D.kind.charAt(n), text;
  if (k2 === "t") text = name(n) + " is a leaf: value " + show(D.value[n]) + ".";
  else if (k2 === "e") text = name(n) + " is at the depth limit: its evaluation is " + show(D.value[n]) + ".";
  else if (k2 === "x") text = name(n) + " takes " + show(D.value[n]) + " from the transposition table.";
  else text = name(n) + " returns " + show(D.value[n]) + ", the " + (D.max[n] ? "largest" : "smallest") +
    " value of the children it visited" + (D.prune ? " (final " + windowText([D.alpha[n], D.beta[n]]) + ")" : "") + ".";
  var p = D.parent[n];
  if (p >= 0 && D.prune) {
    var before = windowOf(p, s - 1), after = windowOf(p, s);
    var changes = [];
    if (before[0] !== after[0]) changes.push("\u03b1 " + show(before[0]) + " \u2192 " + show(after[0]));
    if (before[1] !== after[1]) changes.push("\u03b2 " + show(before[1]) + " \u2192 " + show(after[1]));
    if (changes.length) text += " At " + name(p) + ": " + changes.join(", ") + ".";
  }
  return text;
}
function narrate() {
  var s = step, n = nodeAt(s), box = $("#narration"), kind = s >= 1 && s <= E ? D.steps.charAt(s - 1) : "";
  box.textContent = "";
  var h = document.createElement("h2");
  h.textContent = s === 0 ? "Start" : s === LAST ? "End" : "Step " + s + " of " + LAST;
  box.appendChild(h);
  var p = document.createElement("p");
  p.className = kind === "c" ? "what cutwhy" : "what";
  p.textContent = sayStep(s);
  box.appendChild(p);
  if (s > 1) {
    var ol = document.createElement("ol");
    ol.className = "hist"; ol.start = Math.max(1, s - 4);
    for (var k = Math.max(1, s - 4); k < s && k <= E; k++) {
      var li = document.createElement("li"); li.textContent = sayStep(k); ol.appendChild(li);
    }
    box.appendChild(ol);
  }
  // The path from the root to the current node, with each node's window now.
  var st = $("#stack"), top = n >= 0 ? n : 0;
  st.textContent = "";
  var h2 = document.createElement("h2"); h2.textContent = "Path to the current node"; st.appendChild(h2);
  var table = document.createElement("table");
  var head = document.createElement("tr");
  ["node", "", D.prune ? "\u03b1" : "", D.prune ? "\u03b2" : "", "value"].forEach(function (t) {
    var th = document.createElement("th"); th.textContent = t; head.appendChild(th); });
  table.appendChild(head);
  chainOf(top).reverse().forEach(function (m) {
    var w = windowOf(m, s), v = valueOf(m, s), tr = document.createElement("tr");
    if (m === n) tr.className = "cur";
    [name(m), role(m), show(w[0]), show(w[1]), v === null ? "?" : show(v)].forEach(function (t, c) {
      var td = document.createElement("td"); td.textContent = t; if (c > 1) td.className = "num"; tr.appendChild(td); });
    table.appendChild(tr);
  });
  st.appendChild(table);
}

function go(s) {
  step = Math.max(0, Math.min(LAST, s));
  var cur = nodeAt(step), focus = cur >= 0 ? cur : (against && against.node !== null ? against.node : 0);
  document.body.setAttribute("data-step", String(step));
  if (step === LAST) document.body.setAttribute("data-end", ""); else document.body.removeAttribute("data-end");
  if (!SMALL) {
    var chain = chainOf(focus);
    if (against) { [against.node, against.student_node].forEach(function (m) { if (m !== null && m !== undefined) chain = chain.concat(chainOf(m)); }); }
    var key = chain.join(",");
    if (key !== lastChain) {
      focusChain = {}; chain.forEach(function (m) { focusChain[m] = true; });
      lastChain = key;
      renderTree();
    }
  }
  $("input[data-action=seek]").value = String(step);
  $("#counter").textContent = "step " + step + " / " + LAST;
  paint();
  // Before the search and after it no node is current: the root is what the words are
  // about (the view may still be scrolled to where a trace differs).
  if (cur < 0 && elements[0]) reveal(elements[0]);
  narrate();
}
function stop() { if (timer) { clearInterval(timer); timer = null; } $("button[data-action=play]").textContent = "play"; }
function play() {
  if (timer) { stop(); return; }
  if (step >= LAST) go(0);
  var rate = Number($("#speed").value), every = Math.max(16, 1000 / rate), per = Math.max(1, Math.round(rate * every / 1000));
  $("button[data-action=play]").textContent = "pause";
  timer = setInterval(function () { if (step >= LAST) { stop(); return; } go(step + per); }, every);
}

// --- a student's trace ------------------------------------------------------------------
function moveWords(m) {
  var yours = m.student === null ? "your program printed " + m.printed + ", which is no move from the root"
    : "you played " + (m.student_move || name(m.student)) + " (" + m.printed + ", purple dashed ring)";
  var ours = m.chosen === null ? "the search chooses no move" : "the search chooses " + (m.chosen_move || name(m.chosen)) + " (" + m.chosen_printed + ")";
  return yours + "; " + ours;
}
function showAgainst() {
  var box = $("#against");
  box.hidden = false;
  box.textContent = "";
  var h = document.createElement("h2");
  var add = function (tag, text, cls) { var e = document.createElement(tag); e.textContent = text; if (cls) e.className = cls; box.appendChild(e); return e; };
  if (against.line === null) {
    if (moved && moved.differs) {
      // Every value is right, the move is not: the slip is in the root's choice.
      h.textContent = "Your trace agrees, but your move differs"; box.appendChild(h);
      add("p", "All " + against.total + " lines are the expected ones: your search gave every node its expected value. But " + moveWords(moved) + ".");
      add("p", "So the slip is in how your root picks its move from its children's values: the grader keeps the first child with the strictly best value, in move order (> where >= would keep the last of equal values).");
      return;
    }
    box.classList.add("ok");
    h.textContent = "Your trace agrees"; box.appendChild(h);
    add("p", "All " + against.total + " lines are the expected ones.");
    if (moved) add("p", "Your move is the search's: " + (moved.chosen_move || moved.printed) + ".");
    return;
  }
  h.textContent = "Your trace differs at line " + against.line; box.appendChild(h);
  add("p", "The first " + against.agree + " of " + against.total + " expected lines agree (\u2713 on the tree).");
  add("div", "expected (node " + (against.node === null ? "none" : name(against.node)) + ", red ring):");
  add("pre", against.expected === null ? "(nothing: the expected file ends here)" : against.expected, "exp");
  add("div", "yours" + (against.student_node !== null && against.student_node !== undefined ? " (node " + name(against.student_node) + ", purple ring)" : "") + ":");
  add("pre", against.student === null ? "(nothing: your file ends here)" : against.student, "stu");
  if (moved && moved.differs) add("p", "Your move differs too: " + moveWords(moved) + ".");
  if (against.node !== null) {
    var b = add("button", "go to the step where it differs");
    b.type = "button";
    b.addEventListener("click", function () { stop(); go(D.leave[against.node]); });
  }
}

// --- quiz ------------------------------------------------------------------------------
function parseNumber(text) {
  var t = text.trim().replace(/\u2212/g, "-").replace(/\u221e/g, "inf").toLowerCase();
  if (t === "") return undefined;
  if (t === "inf" || t === "+inf") return "inf";
  if (t === "-inf") return "-inf";
  if (/^[+-]?\d+$/.test(t)) return Number(t);
  return NaN;
}
function checkQuiz() {
  var problems = { values: [], bounds: [], pruned: [] };
  var wrong = {};
  rendered.forEach(function (n) {
    var el = elements[n], visited = D.enter[n] >= 0, nm = name(n);
    var vi = el.querySelector("[data-quiz=value]"), ai = el.querySelector("[data-quiz=alpha]"), bi = el.querySelector("[data-quiz=beta]");
    var fields = [[vi, "value", D.value[n], problems.values], [ai, "\u03b1", D.alpha[n], problems.bounds], [bi, "\u03b2", D.beta[n], problems.bounds]];
    fields.forEach(function (f) {
      if (!f[0]) return;
      var got = parseNumber(f[0].value);
      if (got !== got) { f[3].push(nm + ": " + f[1] + " '" + f[0].value + "' is not a number (use inf, -inf or an integer)"); wrong[n] = true; return; }
      if (!visited) {
        if (got !== undefined) { f[3].push(nm + " is never visited, so it has no " + f[1] + ": leave it empty"); wrong[n] = true; }
        return;
      }
      if (got === undefined) { f[3].push(nm + ": " + f[1] + " is missing"); wrong[n] = true; }
      else if (got !== f[2]) { f[3].push(nm + ": " + f[1] + " " + show(got) + " is wrong"); wrong[n] = true; }
    });
  });
  if (D.prune) {
    var words = $("[data-quiz=pruned]").value.split(/[\s,;]+/).filter(function (w) { return w !== ""; });
    var said = {}, tops = {};
    for (var k = 0; k < N; k++) if (D.enter[k] < 0 && D.enter[D.parent[k]] >= 0) tops[k] = true;
    words.forEach(function (w) {
      var n = byName.hasOwnProperty(w) ? byName[w] : (w === "root" ? 0 : undefined);
      if (n === undefined) { problems.pruned.push("there is no node '" + w + "'"); return; }
      said[n] = true;
      if (tops[n]) return;
      wrong[n] = true;
      if (D.enter[n] >= 0) problems.pruned.push(name(n) + " is not pruned: the search visits it");
      else problems.pruned.push(name(n) + " lies inside a pruned branch: name only the top of each branch");
    });
    Object.keys(tops).forEach(function (t) {
      if (!said[t]) { problems.pruned.push("a pruned branch is missing from your list (" + name(Number(t)) + ")"); wrong[t] = true; }
    });
  }
  rendered.forEach(function (n) { elements[n].classList.toggle("q-wrong", !!wrong[n]); elements[n].classList.toggle("q-right", !wrong[n] && D.enter[n] >= 0); });
  var out = $("[data-quiz=result]"), total = problems.values.length + problems.bounds.length + problems.pruned.length;
  out.textContent = "";
  out.setAttribute("data-verdict", total ? "wrong" : "right");
  var v = document.createElement("p"); v.className = "verdict";
  v.textContent = total ? total + " problem" + (total === 1 ? "" : "s") + ":" : "All correct: values, \u03b1/\u03b2 and the pruned set.";
  out.appendChild(v);
  [["values", "Values"], ["bounds", "Alpha and beta"], ["pruned", "Pruned set"]].forEach(function (part) {
    if (part[0] !== "values" && !D.prune) return;
    var list = problems[part[0]], p = document.createElement("p");
    p.setAttribute("data-quiz-part", part[0]);
    p.textContent = part[1] + ": " + (list.length ? list.length + " wrong" : "right");
    out.appendChild(p);
    if (list.length) { var ul = document.createElement("ul"); list.forEach(function (t) { var li = document.createElement("li"); li.textContent = t; ul.appendChild(li); }); out.appendChild(ul); }
  });
}
function setMode(m) {
  stop();
  mode = m;
  document.querySelectorAll("[data-mode]").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-mode") === m); });
  document.body.setAttribute("data-mode", m);
  $("#bar").hidden = m === "quiz";
  $("#narration").hidden = $("#stack").hidden = m === "quiz";
  $("#quizpanel").hidden = m !== "quiz";
  if (against) $("#against").hidden = m === "quiz";
  lastChain = "";
  renderTree();
  if (m === "quiz") {
    rendered.forEach(function (n) {
      var el = elements[n], ve = el.querySelector(".v");
      setAttr(el, "data-state", "unvisited");
      if (D.given && D.given[n] !== null && D.given[n] !== undefined) ve.textContent = show(D.given[n]);
    });
  } else go(step);
}

// --- wiring ------------------------------------------------------------------------------
var header = document.createElement("header");
var h1 = document.createElement("h1"); h1.textContent = D.title || "Search stepper"; header.appendChild(h1);
D.caption.forEach(function (line) { var p = document.createElement("p"); p.className = "cap"; p.textContent = line; header.appendChild(p); });
document.body.insertBefore(header, document.body.firstChild);
var seek = $("input[data-action=seek]");
seek.max = String(LAST);
seek.addEventListener("input", function () { stop(); go(Number(seek.value)); });
document.querySelectorAll("button[data-action]").forEach(function (b) {
  b.addEventListener("click", function () {
    var a = b.getAttribute("data-action");
    if (a === "play") { play(); return; }
    stop();
    go(a === "first" ? 0 : a === "last" ? LAST : a === "prev" ? step - 1 : step + 1);
  });
});
$("#speed").addEventListener("change", function () { if (timer) { stop(); play(); } });
$("#tree").addEventListener("click", function (ev) {
  var t = ev.target.closest("[data-toggle]");
  if (!t || mode === "quiz") return;
  var n = Number(t.getAttribute("data-toggle"));
  if (isOpen(n)) { userClosed[n] = true; delete userOpen[n]; } else { userOpen[n] = true; delete userClosed[n]; }
  renderTree(); paint();
});
document.addEventListener("keydown", function (ev) {
  if (mode !== "step" || (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName) && ev.target.type !== "range")) return;
  var k = ev.key;
  if (k === "ArrowRight") { stop(); go(step + 1); }
  else if (k === "ArrowLeft") { stop(); go(step - 1); }
  else if (k === "Home") { stop(); go(0); }
  else if (k === "End") { stop(); go(LAST); }
  else if (k === " ") { play(); }
  else return;
  ev.preventDefault();
});
if (D.quiz) {
  var qb = $("button[data-mode=quiz]"); qb.hidden = false;
  document.querySelectorAll("[data-mode]").forEach(function (b) { b.addEventListener("click", function () { setMode(b.getAttribute("data-mode")); }); });
  $("[data-quiz=check]").addEventListener("click", checkQuiz);
  $("[data-quiz=clear]").addEventListener("click", function () { document.querySelectorAll("#tree input, [data-quiz=pruned]").forEach(function (e) { e.value = ""; }); $("[data-quiz=result]").textContent = ""; });
  $("[data-quiz=reveal]").addEventListener("click", function () { setMode("step"); go(LAST); });
} else {
  document.querySelector(".modes").hidden = true;
}
document.body.setAttribute("data-mode", "step");
renderTree();
if (against) { showAgainst(); go(against.node !== null ? D.leave[against.node] : LAST); }
else go(0);
document.body.setAttribute("data-ready", "1");
})();
