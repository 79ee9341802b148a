// Sabot monitor pages. Everything shown comes from the JSON API and is put into the page as
// text (textContent), never as markup: a message from anything but a shoe cannot inject any.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "href") node.setAttribute("href", value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Children absent (null) are left out, as `el` leaves them out: replaceChildren would
// write "null" (an unsigned table's journal line, with no anchor link, did).
function replace(id, ...children) {
  const node = document.getElementById(id);
  node.replaceChildren(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// "1 tie", "2 ties".
function count(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

const PHASES = { burn: "burning cards", between: "between rounds", round: "dealing",
                 ended: "shoe ended" };

const LETTER = { banker: "B", player: "P", tie: "T" };

function ago(seconds) {
  if (seconds === null || seconds === undefined) return "no event yet";
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

function cardNode(code) {
  const red = /[HD]$/.test(code);
  return el("span", { class: red ? "card red" : "card", text: code });
}

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

// The header's badge says whether the page hears the tables: its own stream from the
// monitor, and the monitor's connection to the broker (with the broker away, every table
// stands as it was last heard, and the badge said "live").
const link = { stream: false, broker: null };

function showLink() {
  const badge = document.getElementById("live");
  const broker = link.broker;
  badge.title = "";
  if (!link.stream) {
    badge.textContent = "reconnecting";
    badge.className = "live";
  } else if (broker && !broker.connected) {
    const since = broker.since ? ` since ${new Date(broker.since * 1000).toLocaleTimeString()}` : "";
    badge.textContent = `broker away${since}: tables not heard`;
    badge.className = "live away";
    badge.title = `${broker.address}: ${broker.reason}`;
  } else {
    badge.textContent = "live";
    badge.className = "live on";
  }
}

// Live updates: the server names the table that changed; the page fetches what it shows.
function live(onTable) {
  const source = new EventSource("/api/stream");
  source.onopen = () => {
    link.stream = true;
    showLink();
    getJSON("/api/monitor").then((m) => { link.broker = m.broker; showLink(); }).catch(() => {});
  };
  source.onerror = () => { link.stream = false; showLink(); };
  source.onmessage = (message) => {
    let item;
    try { item = JSON.parse(message.data); } catch (error) { return; }
    if (item && item.broker && typeof item.broker === "object") {
      link.broker = item.broker;
      showLink();
    } else if (item && typeof item.table === "string") onTable(item.table);
  };
}

function debounced(fn, ms) {
  let timer = null;
  return () => {
    if (timer !== null) return;
    timer = setTimeout(() => { timer = null; fn(); }, ms);
  };
}

// -- the room ---------------------------------------------------------------------------

// What the table's signed journal heads say (docs/security.md): one line, loud when broken.
function journalLine(j) {
  if (j.state === "broken") return el("div", { class: "line alert journal", text: `JOURNAL: ${j.problem}` });
  const text = j.state === "signed" ? `journal signed up to record ${j.signed_up_to}` : "journal not signed";
  return el("div", { class: "line dim journal", text });
}

// The other journals the table published from, if any: the one it left last, where it
// ended and what its heads said (red where any journal's heads broke).
function replacedLine(j) {
  const last = j.replaced.at(-1);
  if (!last) return null;
  const broken = j.replaced.find((r) => r.state === "broken");
  const when = last.left ? ` at ${new Date(last.left * 1000).toLocaleString()}` : "";
  const heads = last.state === "signed" ? `signed up to record ${last.signed_up_to}`
    : last.state === "broken" ? "its heads broke" : "not signed";
  const more = j.replaced.length > 1 ? ` (${j.replaced.length} journals before this one)` : "";
  let text = `new journal${when}, first heard at record ${j.first_seq ?? "?"}: the one ` +
             `before ended at record ${last.last_seq} (${heads})${more}`;
  if (broken) text += `; JOURNAL ${broken.journal}: ${broken.problem}`;
  return el("div", { class: broken ? "line alert replaced" : "line warn replaced", text });
}

function tile(t) {
  const classes = ["tile", t.status];
  const broken = t.journal.state === "broken" || t.journal.replaced.some((j) => j.state === "broken");
  if (t.open_faults.length || broken) classes.push("fault");
  else if (t.irregularities || t.journal.replaced.length) classes.push("irregular");
  const lit = t.lamps.length ? t.lamps.map((name) => name.replaceAll("_", " ")).join(", ")
                             : "none";
  const results = el("div", { class: "results" },
    ...Array.from(t.last_results).map((r) => el("span", { class: `dot ${r}`, text: r })));
  const node = el("a", { class: classes.join(" "), href: `/tables/${encodeURIComponent(t.table)}`,
                        "data-table": t.table, "data-seq": t.last_seq,
                        "data-rounds": t.banker + t.player + t.tie + t.void },
    el("h2", {}, el("span", { text: t.table }),
       el("span", { class: `badge ${t.status}`, text: t.status })),
    el("div", { class: "line", text: `shoe ${t.shoe}, round ${t.round ?? "-"}` +
                                      (t.phase ? `, ${PHASES[t.phase] ?? t.phase}` : "") }),
    el("div", { class: "line", text: `lamps: ${lit}` }),
    results,
    el("div", { class: "line", text: `banker ${t.banker}  player ${t.player}  tie ${t.tie}` +
                                      `  cards left ${t.cards_left ?? "?"}` }),
    t.open_faults.length ? el("div", { class: "line alert",
                                       text: `FAULT: ${t.open_faults.map((f) => f.reason).join("; ")}` })
                         : null,
    t.irregularities ? el("div", { class: "line warn",
                                   text: `${count(t.irregularities, "irregularity", "irregularities")} this shoe` }) : null,
    journalLine(t.journal),
    replacedLine(t.journal),
    el("div", { class: "line dim since", "data-ts": t.last_event_ts ?? "",
                text: ago(t.seconds_since_event) }));
  return node;
}

async function showRoom() {
  const tables = await getJSON("/api/tables");
  document.getElementById("empty").hidden = tables.length > 0;
  replace("tables", ...tables.map(tile));
}

function tickSince() {
  const now = Date.now() / 1000;
  for (const node of document.querySelectorAll(".since")) {
    const ts = parseFloat(node.dataset.ts);
    if (!Number.isNaN(ts)) node.textContent = ago(now - ts);
  }
}

// -- a table ----------------------------------------------------------------------------

const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
// An earlier shoe while the user looks at it: its number and its journal (a table restarted
// with a new journal numbers its shoes from 1 again).
let viewing = null;

function shoeQuery(s) {
  return s.journal ? `?journal=${encodeURIComponent(s.journal)}` : "";
}

const MIN_COLUMNS = 12; // an empty road is still drawn as a board

function board(id, columns, draw) {
  const cells = [];
  const width = Math.max(columns.length, MIN_COLUMNS);
  for (let c = 0; c < width; c++) {
    const column = columns[c] || [null, null, null, null, null, null];
    for (const cell of column) cells.push(el("div", { class: "cell" }, cell ? draw(cell) : null));
  }
  replace(id, ...cells);
}

function roadsOf(shoe) {
  const roads = shoe.roads;
  board("bead_plate", roads.bead_plate, (r) => el("span", { class: `mark ${r}`, text: r }));
  board("big_road", roads.big_road, (c) => {
    const ring = el("span", { class: `ring ${c.winner}`, text: c.ties ? String(c.ties) : "" });
    const node = el("span", {}, ring);
    if (c.banker_pair) node.append(el("span", { class: "bp", title: "banker pair" }));
    if (c.player_pair) node.append(el("span", { class: "pp", title: "player pair" }));
    return node;
  });
  for (const name of ["big_eye_boy", "small_road", "cockroach_pig"]) {
    board(name, roads.boards[name], (m) => el("span", { class: `${m}-mark`, title: m }));
  }
  replace("leading", roads.leading_ties
    ? `(${count(roads.leading_ties, "tie", "ties")} before the first win)` : "");
  const names = { big_eye_boy: "Big Eye Boy", small_road: "Small Road", cockroach_pig: "Cockroach Pig" };
  const head = el("tr", {}, el("th", { text: "if next is" }),
    ...Object.values(names).map((n) => el("th", { text: n })));
  const rows = ["banker", "player"].map((w) => el("tr", {}, el("th", { text: w }),
    ...Object.keys(names).map((n) => el("td", { text: roads.ask[w][n] ?? "-" }))));
  replace("ask", head, ...rows);
}

function statsOf(shoe) {
  const t = shoe.tally;
  const stat = (label, value) => el("div", {}, el("b", { text: value }), label);
  replace("stats", stat("banker", t.banker), stat("player", t.player), stat("tie", t.tie),
    stat("player pairs", t.player_pairs), stat("banker pairs", t.banker_pairs),
    stat("naturals", t.naturals), stat("void hands", t.void));
  const ranks = t.cards_left_by_rank;
  if (ranks) {
    // Cards that left the shoe unread are of no known rank: still counted in each rank's
    // cards left, so the row sums to more than the table's cards left; said under it.
    const unread = t.unread ? el("tr", {}, el("td", {
      colspan: ranks.length + 1, class: "dim",
      text: `and ${count(t.unread, "card", "cards")} left the shoe unread, rank unknown` })) : null;
    replace("ranks", el("tr", {}, el("th", { text: "cards left" }),
                        ...ranks.map(([rank]) => el("th", { text: rank }))),
            el("tr", {}, el("td", { text: "" }),
               ...ranks.map(([, left]) => el("td", { text: left }))), unread);
  } else replace("ranks");
  replace("notes", ...(shoe.notes.length ? shoe.notes.map((n) => {
    const when = n.ts ? new Date(n.ts * 1000).toLocaleTimeString() : "";
    let text = `${when} round ${n.round ?? "-"}: `;
    let cls = "";
    if (n.event === "irregularity") { text += `rule ${n.rule}: ${n.message}`; cls = "warn"; }
    else if (n.event === "fault" && n.acknowledged) {
      const at = new Date(n.acknowledged * 1000).toLocaleTimeString();
      text += `fault, acknowledged at ${at}: ${n.reason}`;
      cls = "warn";
    } else if (n.event === "fault") { text += `FAULT: ${n.reason}`; cls = "alert"; }
    else if (n.event === "cut_card") text += `cutting card drawn (rule ${n.rule})`;
    else if (n.event === "last_coup") text += `last coup announced (rule ${n.rule})`;
    else if (n.event === "shoe_end") text = `${when} end of the shoe after ${n.rounds} rounds, ${n.cards_left} cards left`;
    else text += n.event.replaceAll("_", " ");
    return el("li", { class: cls, text });
  }) : [el("li", { class: "dim", text: "none" })]));
}

function nowOf(t) {
  replace("title", t.table);
  const status = replace("status", t.status);
  status.className = `badge ${t.status}`;
  replace("lamps", ...t.lamp_names.map((name) => el("span", {
    class: `lamp${t.lamps.includes(name) ? " lit" : ""}${name === "fault" ? " fault" : ""}`,
    text: name.replaceAll("_", " ") })));
  replace("player", ...t.hands.player.map(cardNode));
  replace("banker", ...t.hands.banker.map(cardNode));
  // The age ticks on the page's clock, as the room's tiles do: with the monitor gone, it
  // still said "0 s ago" under "reconnecting" (an officer's trial, stop 53).
  replace("shoe-line", `shoe ${t.shoe}, round ${t.round ?? "-"}, ${t.cards_left ?? "?"} cards ` +
          "left, last event ", el("span", { class: "since", "data-ts": t.last_event_ts ?? "",
                                            text: ago(t.seconds_since_event) }));
  replace("faults", ...t.open_faults.map((f) => el("p", { class: "alert",
    text: `FAULT (round ${f.round ?? "-"}): ${f.reason}` })));
  const anchor = t.journal.state === "signed"
    ? el("a", { href: `/api/tables/${encodeURIComponent(t.table)}/anchor`, text: " (anchor)" }) : null;
  replace("journal", journalLine(t.journal), anchor, replacedLine(t.journal));
}

function shoesOf(t) {
  const head = el("tr", {}, ...["shoe", "rounds", "banker", "player", "tie", "", ""]
    .map((h) => el("th", { text: h })));
  const rows = t.shoes.map((s) => {
    const base = `/api/tables/${encodeURIComponent(t.table)}/shoes/${s.shoe}`;
    const query = shoeQuery(s);
    const latest = s.shoe === t.current.shoe && s.journal === t.current.journal;
    const shown = viewing === null ? latest : s.shoe === viewing.shoe && s.journal === viewing.journal;
    // The latest shoe is "in play" until it ends; the row in bold is the shoe shown.
    const look = el("button", { text: latest ? (s.ended ? "latest" : "in play") : "show" });
    look.addEventListener("click", () => { viewing = latest ? null : s; showTable(); });
    let label = s.journal && s.journal !== t.journal.id ? `${s.shoe} (earlier journal)` : `${s.shoe}`;
    // Begun before this monitor heard the table: its rounds are not all listed.
    if (s.partial) label += " (seen in part)";
    return el("tr", { class: shown ? "current" : "" },
      el("td", { text: label }), el("td", { text: s.rounds }), el("td", { text: s.banker }),
      el("td", { text: s.player }), el("td", { text: s.tie }), el("td", {}, look),
      el("td", {}, el("a", { href: `${base}.json${query}`, text: "JSON" }), " ",
         el("a", { href: `${base}.csv${query}`, text: "CSV" })));
  });
  replace("shoes", head, ...rows);
}

async function showTable() {
  const t = await getJSON(`/api/tables/${encodeURIComponent(tableId)}`);
  nowOf(t);
  shoesOf(t);
  let shoe = t.current;
  if (viewing !== null) {
    shoe = await getJSON(`/api/tables/${encodeURIComponent(tableId)}/shoes/${viewing.shoe}${shoeQuery(viewing)}`);
  }
  const earlier = shoe.journal && shoe.journal !== t.journal.id ? " of the earlier journal" : "";
  const state = viewing !== null ? earlier : shoe.ended ? " (ended)" : " (in play)";
  replace("roads-title", `Roads, shoe ${shoe.shoe}${state}`);
  replace("stats-title", `Shoe statistics, shoe ${shoe.shoe}${state}`);
  // A monitor started after the shoe began has seen only part of it: the counts and the
  // roads are the table's own tally (without the pairs), the rounds not listed.
  replace("partial", shoe.partial ? "This monitor started after the shoe began: the counts " +
          "and roads are the table's own tally (pairs not shown); its earlier rounds are " +
          "not listed." : "");
  roadsOf(shoe);
  statsOf(shoe);
  document.body.dataset.seq = String(t.last_seq);
}

// -- start ------------------------------------------------------------------------------

function start() {
  const page = document.body.dataset.page;
  if (page === "room") {
    const refresh = debounced(() => showRoom().catch(() => {}), 100);
    live(refresh);
    showRoom().catch(() => {});
    setInterval(tickSince, 1000);
  } else if (page === "table") {
    document.title = `Sabot monitor: ${tableId}`;
    const refresh = debounced(() => showTable().catch(() => {}), 100);
    live((table) => { if (table === tableId) refresh(); });
    showTable().catch(() => replace("title", `${tableId}: not heard from`));
    setInterval(tickSince, 1000);
  }
}

start();
