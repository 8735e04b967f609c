(function () {
"use strict";
var table = document.getElementById("leaderboard");
if (!table) { return; }
var WIDTH = 200;
function cell(row, text, numeric) {
  var td = document.createElement("td");
  if (numeric) { td.className = "n"; }
  td.textContent = text;
  row.appendChild(td);
  return td;
}
function signed(value) {
  var r = Math.round(value);
  return (r > 0 ? "+" : "") + r;
}
function bar(td, row, low, high) {
  if (row.rating === null) { return; }
  var ns = "http://www.w3.org/2000/svg";
  var span = Math.max(high - low, 1);
  function x(v) { return Math.max(0, Math.min(WIDTH - 2, (v - low) / span * (WIDTH - 2))); }
  var svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "interval");
  svg.setAttribute("width", WIDTH); svg.setAttribute("height", 14);
  svg.setAttribute("viewBox", "0 0 " + WIDTH + " 14");
  var range = document.createElementNS(ns, "rect");
  range.setAttribute("class", "range");
  range.setAttribute("x", x(row.rating_low)); range.setAttribute("y", 4);
  range.setAttribute("width", Math.max(x(row.rating_high) - x(row.rating_low), 1));
  range.setAttribute("height", 6);
  var point = document.createElementNS(ns, "rect");
  point.setAttribute("class", "point");
  point.setAttribute("x", x(row.rating)); point.setAttribute("y", 1);
  point.setAttribute("width", 2); point.setAttribute("height", 12);
  svg.appendChild(range); svg.appendChild(point);
  td.appendChild(svg);
}
function draw(rows) {
  var rated = rows.filter(function (r) { return r.rating !== null; });
  var low = Math.min.apply(null, rated.map(function (r) { return r.rating_low; }).concat([-100]));
  var high = Math.max.apply(null, rated.map(function (r) { return r.rating_high; }).concat([100]));
  var body = document.createElement("tbody");
  body.id = "leaderboard-rows";
  rows.forEach(function (r, i) {
    var tr = document.createElement("tr");
    tr.setAttribute("data-name", r.name);
    cell(tr, String(i + 1));
    var name = cell(tr, r.name);
    if (r.staff) {
      var badge = document.createElement("span");
      badge.className = "badge"; badge.textContent = "staff";
      name.appendChild(document.createTextNode(" ")); name.appendChild(badge);
    }
    cell(tr, r.rating === null ? "—" : signed(r.rating), true);
    bar(cell(tr, ""), r, low, high);
    cell(tr, String(r.games), true);
    cell(tr, r.wins + "-" + r.draws + "-" + r.losses, true);
    cell(tr, String(r.submission), true);
    body.appendChild(tr);
  });
  var old = document.getElementById("leaderboard-rows");
  old.parentNode.replaceChild(body, old);
  table.setAttribute("data-updated", String(Date.now()));
}
function poll() {
  fetch("/api/leaderboard", {credentials: "omit"}).then(function (response) {
    return response.ok ? response.json() : null;
  }).then(function (rows) { if (rows) { draw(rows); } })
    .catch(function () {}).then(function () { setTimeout(poll, 3000); });
}
setTimeout(poll, 3000);
})();
