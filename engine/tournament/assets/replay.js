(function () {
"use strict";
var data = null, cur = null, frames = [], at = 0, openRow = null;
var viewer = document.getElementById("viewer");
var board = document.getElementById("board"), list = document.getElementById("moves");
var status = document.getElementById("replay-status");
if (!viewer || !board || !document.getElementById("replay-data")) { return; }
function byId(id) { return document.getElementById(id); }
function load() {
  if (data === null) { data = JSON.parse(byId("replay-data").textContent); }
  return data;
}
function changes(delta) {
  var out = [];
  for (var k = 0; k + 2 < delta.length; k += 3) {
    out.push([delta.charAt(k), parseInt(delta.substr(k + 1, 2), 36)]);
  }
  return out;
}
function expand(g) {
  var cells = g.b.split(""), out = [g.b];
  g.d.forEach(function (delta) {
    changes(delta).forEach(function (c) { cells[c[1]] = c[0]; });
    out.push(cells.join(""));
  });
  return out;
}
function el(tag, cls, text) {
  var node = document.createElement(tag);
  if (cls) { node.className = cls; }
  if (text !== undefined) { node.textContent = text; }
  return node;
}
function letter(i) { return String.fromCharCode(65 + i); }
function build() {
  board.textContent = "";
  if (!cur.b) { board.style.gridTemplateColumns = ""; return; }
  var n = cur.n, size = Math.max(18, Math.min(46, Math.floor(460 / n)));
  board.style.gridTemplateColumns = "1.8em repeat(" + n + ", " + size + "px)";
  board.style.fontSize = Math.max(9, Math.floor(size * 0.34)) + "px";
  board.appendChild(el("div", "lab"));
  for (var c = 0; c < n; c++) { board.appendChild(el("div", "lab", letter(c))); }
  for (var r = 0; r < n; r++) {
    board.appendChild(el("div", "lab", String(r + data.base)));
    for (c = 0; c < n; c++) {
      var cell = el("div", "cell");
      cell.style.height = size + "px";
      cell.setAttribute("data-cell", letter(c) + (r + data.base));
      if (cur.v) { cell.appendChild(el("span", "", String(cur.v[r * n + c]))); }
      board.appendChild(cell);
    }
  }
}
function fillMoves() {
  list.textContent = "";
  cur.m.forEach(function (text, i) {
    var item = el("li", i < frames.length - 1 ? "" : "bad");
    item.setAttribute("data-move", String(i + 1));
    var side = cur.s.charAt(i);
    var stone = el("span", "stone " + (side === "x" || side === "o" ? side : ""));
    stone.title = side.toUpperCase();
    item.appendChild(stone);
    item.appendChild(el("span", "mv", text));
    var t = cur.t[i];
    item.appendChild(el("span", "cpu", t === null ? "" : t + " s"));
    if (i >= frames.length - 1) { item.title = "not replayed"; }
    list.appendChild(item);
  });
}
function show(k) {
  at = Math.max(0, Math.min(k, frames.length - 1));
  board.setAttribute("data-frame", String(at));
  var last = {};
  if (at > 0) { changes(cur.d[at - 1]).forEach(function (c) { last[c[1]] = true; }); }
  var cells = board.querySelectorAll(".cell"), f = frames[at], x = 0, o = 0;
  for (var i = 0; i < cells.length; i++) {
    var mark = f ? f.charAt(i) : ".";
    cells[i].setAttribute("data-mark", mark);
    cells[i].classList.toggle("last", !!last[i]);
    if (cur.v) { if (mark === "X") { x += cur.v[i]; } else if (mark === "O") { o += cur.v[i]; } }
  }
  var total = frames.length - 1;
  status.textContent = at === 0 ? "start (" + total + " moves)" : "move " + at + " of " + total;
  byId("replay-score").textContent = cur.v && f ? "X " + x + " · O " + o : "";
  var items = list.children;
  for (i = 0; i < items.length; i++) { items[i].classList.toggle("cur", i === at - 1); }
  var item = items[at - 1];
  if (item) {
    if (item.offsetTop < list.scrollTop) { list.scrollTop = item.offsetTop; }
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
    }
  } else if (at === 0) { list.scrollTop = 0; }
  viewer.querySelector('[data-go="first"]').disabled = at === 0;
  viewer.querySelector('[data-go="prev"]').disabled = at === 0;
  viewer.querySelector('[data-go="next"]').disabled = at === total;
  viewer.querySelector('[data-go="last"]').disabled = at === total;
}
function close() {
  viewer.hidden = true;
  if (openRow) { openRow.classList.remove("open"); }
  openRow = null;
}
function open(row) {
  var g = load().games[Number(row.getAttribute("data-g"))];
  if (!g) { return; }
  if (openRow) { openRow.classList.remove("open"); }
  openRow = row; cur = g;
  row.classList.add("open");
  row.parentNode.insertBefore(viewer, row.nextSibling);
  viewer.hidden = false;
  frames = g.b ? expand(g) : [null];
  byId("replay-title").textContent = row.getAttribute("data-title");
  byId("legend-x").textContent = row.getAttribute("data-x");
  byId("legend-o").textContent = row.getAttribute("data-o");
  byId("replay-note").textContent = g.e || "";
  build(); fillMoves(); show(0);
}
function go(how) {
  if (how === "close") { close(); return; }
  show({first: 0, prev: at - 1, next: at + 1, last: frames.length - 1}[how]);
}
byId("game-rows").addEventListener("click", function (event) {
  var button = event.target.closest("button.play");
  if (button) {
    var row = button.closest("tr");
    if (row === openRow) { close(); } else { open(row); }
    return;
  }
  var control = event.target.closest("[data-go]");
  if (control) { go(control.getAttribute("data-go")); return; }
  var item = event.target.closest("li[data-move]");
  if (item && !item.classList.contains("bad")) { show(Number(item.getAttribute("data-move"))); }
});
document.addEventListener("keydown", function (event) {
  if (viewer.hidden || /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) { return; }
  var how = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last",
             Escape: "close"}[event.key];
  if (how) { event.preventDefault(); go(how); }
});
function filter() {
  var words = this.value.toLowerCase().split(/\s+/).filter(Boolean);
  var rows = byId("game-rows").children;
  for (var i = 0; i < rows.length; i++) {
    if (rows[i] === viewer) { continue; }
    var text = rows[i].textContent.toLowerCase();
    rows[i].hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    if (rows[i].hidden && rows[i] === openRow) { close(); }
  }
}
if (byId("game-filter")) { byId("game-filter").addEventListener("input", filter); }
function fromHash() {
  var match = /^#game-(\d+)$/.exec(location.hash);
  var row = match && byId("game-" + match[1]);
  if (row && row.querySelector("button.play")) { open(row); row.scrollIntoView(); return true; }
  return false;
}
window.addEventListener("hashchange", fromHash);
// A page of one game (game_board) opens it at once: its row says data-open.
var first = document.querySelector("#game-rows tr[data-open]");
if (!fromHash() && first) { open(first); }
})();
