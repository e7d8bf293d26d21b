"""A seeded, deterministic generator of the FINANCE demo data (all names and figures fictitious).

`generate()` returns {table name: [row tuple in column order, ...]} at the seed workshop's sizes.
Only `random.Random(SEED).random()` is drawn (no `choice`/`sample`, whose algorithms may change between
Python versions), and `MANIFEST.json` pins the sha256 of the result, so a changed generator or
interpreter is caught before a database is built from it (`verify()`).

    python -m workshop.data.finance            # print counts and the digest
    python -m workshop.data.finance --write    # re-pin MANIFEST.json after an intended change
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
from decimal import Decimal
from pathlib import Path

from .tables import FINANCE_TABLES, TABLE_PREFIX

SEED = 20260404
GENERATOR_VERSION = "1.0.0"
MANIFEST = Path(__file__).with_name("MANIFEST.json")

#: The sizes of the seed workshop's FINANCE schema (exact here).
COUNTS = {"BRANCHES": 60, "MERCHANTS": 140, "CUSTOMERS": 2000, "ACCOUNTS": 2650, "CARDS": 3000,
          "TRANSACTIONS": 23600, "LOANS": 900, "SAR_REPORTS": 117, "SANCTIONS_SCREENINGS": 431,
          "BENEFICIAL_OWNERS": 1206, "WIRE_MESSAGES": 1320, "LOGIN_EVENTS": 7000, "KYC_DOCUMENTS": 3000,
          "CASE_NOTES": 250, "FX_RATES": 630}

START = dt.datetime(2026, 1, 1)
AS_OF = dt.date(2026, 7, 1)
CASH_THRESHOLD_CENTS = 1_000_000          # USD 10,000: the currency-transaction reporting threshold

CITIES = (  # (city, country, latitude, longitude): public coordinates of real cities
    ("New York", "US", 40.7128, -74.0060), ("Chicago", "US", 41.8781, -87.6298),
    ("Miami", "US", 25.7617, -80.1918), ("Houston", "US", 29.7604, -95.3698),
    ("San Francisco", "US", 37.7749, -122.4194), ("Toronto", "CA", 43.6532, -79.3832),
    ("London", "GB", 51.5074, -0.1278), ("Manchester", "GB", 53.4808, -2.2426),
    ("Lisbon", "PT", 38.7223, -9.1393), ("Madrid", "ES", 40.4168, -3.7038),
    ("Paris", "FR", 48.8566, 2.3522), ("Frankfurt", "DE", 50.1109, 8.6821),
    ("Zurich", "CH", 47.3769, 8.5417), ("Amsterdam", "NL", 52.3676, 4.9041),
    ("Dubai", "AE", 25.2048, 55.2708), ("Singapore", "SG", 1.3521, 103.8198),
    ("Hong Kong", "HK", 22.3193, 114.1694), ("Tokyo", "JP", 35.6762, 139.6503),
    ("Mexico City", "MX", 19.4326, -99.1332), ("Sao Paulo", "BR", -23.5505, -46.6333),
)
FIRST = ("Ana", "Ben", "Carla", "Dev", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luis", "Mara",
         "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wes", "Ximena", "Yuki", "Zeno")
LAST = ("Abreu", "Brandt", "Castell", "Dalmau", "Eklund", "Ferrante", "Gallo", "Hartig", "Ibarra", "Jovic",
        "Kessler", "Lindqvist", "Moreau", "Novak", "Oyelaran", "Petrov", "Quintero", "Rask", "Soler", "Tavares",
        "Ulloa", "Varga", "Weiss", "Yilmaz", "Zamora", "Okafor", "Sato", "Mendez", "Holm", "Baptiste")
WORDS = ("Harbor", "Summit", "Cedar", "Atlas", "Meridian", "Granite", "Willow", "Beacon", "Falcon", "Orchid",
         "Copper", "Northwind", "Silverline", "Bluegate", "Redfern", "Ironwood", "Lakeshore", "Pioneer")
SUFFIX = ("Trading Ltd", "Holdings", "Logistics", "Imports LLC", "Partners", "Group", "Foods", "Consulting")
MCCS = (("5411", "grocery stores", 0), ("5812", "restaurants", 0), ("5541", "fuel stations", 0),
        ("5732", "electronics", 0), ("4111", "commuter transport", 0), ("5311", "department stores", 0),
        ("7011", "hotels", 0), ("4511", "airlines", 0), ("5912", "pharmacies", 0), ("5999", "retail, other", 0),
        ("6051", "crypto and money orders", 1), ("4829", "money transfer", 1), ("7995", "gambling", 1),
        ("5944", "jewellery", 1))
CURRENCIES = ("EUR", "GBP", "JPY", "CHF", "CAD", "MXN", "SGD")
FX_START = {"EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CHF": 1.12, "CAD": 0.74, "MXN": 0.058, "SGD": 0.75}
PURPOSES = ("SALA", "SUPP", "GDDS", "TRAD", "INTC", "LOAN", "RENT", "CHAR")
NOTE_TEMPLATES = (
    "Reviewed {n} cash deposits between {a} and {b}, each just under USD 10,000; the pattern suggests structuring "
    "to avoid the currency transaction report.",
    "Funds received by wire were sent on within 48 hours to a counterparty in {c}; no business rationale on file.",
    "Customer could not explain the source of funds when contacted by the branch; account placed under review.",
    "Beneficial ownership declaration lists a nominee director; requested the UBO register extract.",
    "Round-amount wires to a newly opened account abroad; purpose code does not match the customer's business.",
    "Screening hit against the {l} list escalated; name, date of birth and country partly match.",
    "Compared login locations: two sessions from distant countries within one hour (impossible travel).",
    "Closed the alert review and recommended filing; supervisor approved the SAR narrative.",
)


class _Draw:
    """Random draws built on Random.random() only (stable across Python versions)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def unit(self) -> float:
        return self.rng.random()

    def int(self, low: int, high: int) -> int:          # inclusive
        return low + int(self.rng.random() * (high - low + 1))

    def pick(self, seq):
        return seq[int(self.rng.random() * len(seq))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def money(self, low: float, high: float) -> Decimal:
        return Decimal(f"{low + self.rng.random() * (high - low):.2f}")


def _near(d: _Draw, lat: float, lon: float, spread: float = 0.08) -> tuple[Decimal, Decimal]:
    return (Decimal(f"{lat + (d.unit() - 0.5) * spread:.6f}"), Decimal(f"{lon + (d.unit() - 0.5) * spread:.6f}"))


def _person(d: _Draw) -> str:
    return f"{d.pick(FIRST)} {d.pick(LAST)}"


def _company(d: _Draw) -> str:
    return f"{d.pick(WORDS)} {d.pick(WORDS)} {d.pick(SUFFIX)}"


def _ts(d: _Draw, days: int = 181) -> dt.datetime:
    return START + dt.timedelta(seconds=d.int(0, days * 86400 - 1))


def _day(ts: dt.datetime) -> dt.date:
    return ts.date()


def generate() -> dict[str, list[tuple]]:
    """Every FINANCE table's rows (tuples in column order), keyed by logical table name (no prefix)."""
    d = _Draw(SEED)
    out: dict[str, list[tuple]] = {}

    out["BRANCHES"] = []
    for i in range(1, COUNTS["BRANCHES"] + 1):
        city, country, lat, lon = CITIES[(i - 1) % len(CITIES)]
        la, lo = _near(d, lat, lon)
        out["BRANCHES"].append((i, f"{city} {d.pick(WORDS)}", city, country, la, lo,
                                dt.date(1990 + d.int(0, 34), d.int(1, 12), d.int(1, 28))))

    out["MERCHANTS"] = []
    for i in range(1, COUNTS["MERCHANTS"] + 1):
        city, country, lat, lon = d.pick(CITIES)
        mcc, category, risky = MCCS[(i - 1) % len(MCCS)]
        la, lo = _near(d, lat, lon)
        out["MERCHANTS"].append((i, f"{d.pick(WORDS)} {category.split()[0].title()}", mcc, category, city, country,
                                 la, lo, risky))
    risky_merchants = [m[0] for m in out["MERCHANTS"] if m[8]]
    plain_merchants = [m[0] for m in out["MERCHANTS"] if not m[8]]

    out["CUSTOMERS"] = []
    kinds = {}
    for i in range(1, COUNTS["CUSTOMERS"] + 1):
        kind = "CORP" if i % 20 == 0 else "SME" if i % 20 in (1, 7, 13) else "RETAIL"
        kinds[i] = kind
        branch = d.int(1, COUNTS["BRANCHES"])
        country = out["BRANCHES"][branch - 1][3]
        name = _person(d) if kind == "RETAIL" else _company(d)
        dob = dt.date(1950 + d.int(0, 55), d.int(1, 12), d.int(1, 28)) if kind == "RETAIL" else None
        risk = min(100, max(1, int(d.unit() ** 2 * 100) + 1))
        pep = 1 if d.chance(0.015) else 0
        out["CUSTOMERS"].append((i, name, kind, country, dob, dt.date(2010 + d.int(0, 15), d.int(1, 12), d.int(1, 28)),
                                 max(risk, 75) if pep else risk, pep, branch))
    businesses = [c for c, k in kinds.items() if k != "RETAIL"]

    out["ACCOUNTS"] = []
    owner_of = {}
    types = ("CHECKING", "SAVINGS", "MONEY_MARKET", "CREDIT_LINE")
    for i in range(1, COUNTS["ACCOUNTS"] + 1):
        customer = i if i <= COUNTS["CUSTOMERS"] else d.int(1, COUNTS["CUSTOMERS"])
        owner_of[i] = customer
        currency = "USD" if d.chance(0.85) else d.pick(("EUR", "GBP", "CAD"))
        account_type = "CHECKING" if i <= COUNTS["CUSTOMERS"] else d.pick(types[1:])
        status = "FROZEN" if d.chance(0.01) else "CLOSED" if d.chance(0.03) else "OPEN"
        out["ACCOUNTS"].append((i, customer, account_type, currency,
                                dt.date(2012 + d.int(0, 13), d.int(1, 12), d.int(1, 28)), status,
                                d.money(-2000, 60000) if account_type == "CREDIT_LINE" else d.money(0, 80000)))
    currency_of = {a[0]: a[3] for a in out["ACCOUNTS"]}
    checking = {a[1]: a[0] for a in out["ACCOUNTS"] if a[2] == "CHECKING"}

    out["CARDS"] = []
    cards_of: dict[int, list[int]] = {}
    for i in range(1, COUNTS["CARDS"] + 1):
        account = i if i <= COUNTS["ACCOUNTS"] else d.int(1, COUNTS["ACCOUNTS"])
        issued = dt.date(2022 + d.int(0, 4), d.int(1, 12), d.int(1, 28))
        expires = issued.replace(year=issued.year + 4)
        status = "EXPIRED" if expires < AS_OF else "BLOCKED" if d.chance(0.02) else "ACTIVE"
        out["CARDS"].append((i, account, d.pick(("DEBIT", "DEBIT", "CREDIT", "PREPAID")), f"{d.int(0, 9999):04d}",
                             issued, expires, status))
        cards_of.setdefault(account, []).append(i)

    # --- transactions: seeded AML patterns first, then ordinary activity up to the total
    txns: list[list] = []
    wires: list[tuple[int, str]] = []                     # (index into txns, beneficiary country)
    structurers = businesses[:15] + [c for c in range(3, 2000, 67)][:30]
    movers = [c for c in range(11, 2000, 61)][:30]
    rounders = [c for c in range(29, 2000, 97)][:12]

    def add(account, ts, cents, channel, direction, counterparty=None, pattern=None, card=None, merchant=None):
        txns.append([account, card, merchant, ts, int(cents), currency_of[account], channel, direction,
                     counterparty, pattern])
        return len(txns) - 1

    for c in structurers:
        account, first = checking[c], _ts(d, 170)
        for n in range(6):
            add(account, first + dt.timedelta(hours=d.int(3, 40) * (n + 1)), d.int(900_000, 999_000), "CASH", "CREDIT",
                pattern="STRUCTURING")
    for c in movers:
        account, first = checking[c], _ts(d, 170)
        for n in range(3):
            cents = d.int(2_500_000, 9_000_000)
            country = d.pick(("AE", "HK", "SG", "MX"))
            inbound = add(account, first + dt.timedelta(days=7 * n), cents, "WIRE", "CREDIT", _company(d),
                          "RAPID_MOVEMENT")
            outbound = add(account, first + dt.timedelta(days=7 * n, hours=d.int(4, 40)), cents - d.int(100, 5000) * 100,
                           "WIRE", "DEBIT", _company(d), "RAPID_MOVEMENT")
            wires += [(inbound, country), (outbound, country)]
    for c in rounders:
        account = checking[c]
        for n in range(5):
            wires.append((add(account, _ts(d, 175), d.int(2, 9) * 1_000_000, "WIRE", "DEBIT", _company(d),
                              "ROUND_AMOUNT"), d.pick(("AE", "CY", "PA", "HK"))))
    while len(wires) < COUNTS["WIRE_MESSAGES"]:
        account = d.int(1, COUNTS["ACCOUNTS"])
        wires.append((add(account, _ts(d), d.int(50_000, 4_000_000), "WIRE", d.pick(("DEBIT", "CREDIT")), _company(d)),
                      d.pick(CITIES)[1]))
    while len(txns) < COUNTS["TRANSACTIONS"]:
        account = d.int(1, COUNTS["ACCOUNTS"])
        roll = d.unit()
        if roll < 0.70 and account in cards_of:
            merchant = d.pick(risky_merchants) if d.chance(0.04) else d.pick(plain_merchants)
            add(account, _ts(d), d.int(150, 45_000), "CARD", "DEBIT", card=d.pick(cards_of[account]), merchant=merchant)
        elif roll < 0.85:
            add(account, _ts(d), d.int(5_000, 600_000), "ACH", d.pick(("DEBIT", "CREDIT")), _company(d))
        elif roll < 0.95:
            add(account, _ts(d), d.int(2_000, 400_000), "CASH", d.pick(("DEBIT", "CREDIT")))
        else:
            add(account, _ts(d), d.int(1_000, 500_000), "TRANSFER", d.pick(("DEBIT", "CREDIT")), "own account")
    order = sorted(range(len(txns)), key=lambda i: (txns[i][3], i))
    txn_id = {old: new for new, old in enumerate(order, start=1)}
    out["TRANSACTIONS"] = [(txn_id[i], *txns[i]) for i in order]

    out["WIRE_MESSAGES"] = []
    for n, (index, country) in enumerate(sorted(wires, key=lambda w: txn_id[w[0]]), start=1):
        txn = txns[index]
        ours = f"FNBK{d.pick(('US', 'GB', 'PT'))}{d.pick(('33', '2L', '44'))}"
        theirs = f"{d.pick(WORDS)[:4].upper()}{country}{d.int(10, 99)}"
        sender, receiver = (ours, theirs) if txn[7] == "DEBIT" else (theirs, ours)
        out["WIRE_MESSAGES"].append((n, txn_id[index], "MT103" if d.chance(0.9) else "MT202", sender, receiver,
                                     txn[8] or _company(d), country, d.pick(PURPOSES)))

    out["LOANS"] = []
    products = (("MORTGAGE", 150_000, 900_000, 480, 780, 360), ("AUTO", 8_000, 60_000, 520, 1150, 60),
                ("PERSONAL", 2_000, 40_000, 790, 2450, 48), ("SME_TERM", 50_000, 2_000_000, 610, 1390, 84))
    for i in range(1, COUNTS["LOANS"] + 1):
        customer = d.int(1, COUNTS["CUSTOMERS"])
        product = products[3] if kinds[customer] != "RETAIL" else products[d.int(0, 2)]
        name, low, high, bp_low, bp_high, term = product
        status = d.pick(("CURRENT",) * 14 + ("LATE", "DEFAULTED", "REPAID", "REPAID"))
        out["LOANS"].append((i, customer, name, d.money(low, high), d.int(bp_low, bp_high), term,
                             dt.date(2018 + d.int(0, 8), d.int(1, 12), d.int(1, 28)), status))

    out["SAR_REPORTS"] = []
    subjects = ([(c, "STRUCTURING") for c in structurers] + [(c, "RAPID_MOVEMENT") for c in movers]
                + [(c, "ROUND_AMOUNT") for c in rounders])
    while len(subjects) < COUNTS["SAR_REPORTS"]:
        subjects.append((d.int(1, COUNTS["CUSTOMERS"]), d.pick(("SANCTIONS", "FRAUD"))))
    for i, (customer, typology) in enumerate(subjects, start=1):
        start = START.date() + dt.timedelta(days=d.int(0, 150))
        end = start + dt.timedelta(days=d.int(3, 30))
        status = d.pick(("FILED", "FILED", "FILED", "CLOSED", "DRAFT"))
        filed = None if status == "DRAFT" else end + dt.timedelta(days=d.int(5, 29))
        out["SAR_REPORTS"].append((i, customer, typology, start, end, d.money(20_000, 900_000), filed, status))

    out["CASE_NOTES"] = []
    for i in range(1, COUNTS["CASE_NOTES"] + 1):
        sar = out["SAR_REPORTS"][(i - 1) % COUNTS["SAR_REPORTS"]]
        template = NOTE_TEMPLATES[0] if sar[2] == "STRUCTURING" and i <= COUNTS["SAR_REPORTS"] else \
            NOTE_TEMPLATES[1] if sar[2] == "RAPID_MOVEMENT" and i <= COUNTS["SAR_REPORTS"] else d.pick(NOTE_TEMPLATES)
        note = template.format(n=6, a=sar[3], b=sar[4], c=d.pick(("AE", "HK", "SG")), l=d.pick(("OFAC", "EU", "UN")))
        written = dt.datetime.combine(sar[4], dt.time()) + dt.timedelta(hours=d.int(1, 400))
        out["CASE_NOTES"].append((i, sar[0], _person(d), written, note))

    out["SANCTIONS_SCREENINGS"] = []
    peps = [c[0] for c in out["CUSTOMERS"] if c[7]]
    for i in range(1, COUNTS["SANCTIONS_SCREENINGS"] + 1):
        customer = peps[i - 1] if i <= len(peps) else d.int(1, COUNTS["CUSTOMERS"])
        list_name = "PEP" if i <= len(peps) else d.pick(("OFAC", "EU", "UN", "ADVERSE_MEDIA", "OFAC"))
        score = Decimal(f"{60 + d.unit() * 40:.2f}")
        disposition = ("TRUE_MATCH" if list_name == "PEP" else "FALSE_POSITIVE" if score < 85
                       else d.pick(("ESCALATED", "FALSE_POSITIVE", "PENDING", "TRUE_MATCH")))
        out["SANCTIONS_SCREENINGS"].append((i, customer, list_name, _person(d), score, _ts(d), disposition))

    out["BENEFICIAL_OWNERS"] = []
    per = [d.int(1, 5) for _ in businesses]
    while sum(per) != COUNTS["BENEFICIAL_OWNERS"]:
        j = d.int(0, len(per) - 1)
        if sum(per) < COUNTS["BENEFICIAL_OWNERS"]:
            per[j] += 1
        elif per[j] > 1:
            per[j] -= 1
    n = 0
    for customer, owners in zip(businesses, per):
        shares = [d.unit() + 0.2 for _ in range(owners)]
        for k in range(owners):
            n += 1
            layer = 1 if k < 2 else d.int(1, 3)
            pct = Decimal(f"{100 * shares[k] / sum(shares):.2f}")
            name = _person(d) if layer == 1 and d.chance(0.6) else _company(d)
            out["BENEFICIAL_OWNERS"].append((n, customer, name, pct, layer, d.pick(CITIES)[1],
                                             1 if d.chance(0.02) else 0))

    out["LOGIN_EVENTS"] = []
    home = {c[0]: CITIES[(c[8] - 1) % len(CITIES)] for c in out["CUSTOMERS"]}
    logins = []
    for c in range(1, 41):                                  # impossible travel: far apart within an hour
        customer = c * 47
        ts = _ts(d)
        a, b = home[customer], d.pick(CITIES[14:])
        logins += [(customer, ts, a), (customer, ts + dt.timedelta(minutes=d.int(10, 55)), b)]
    while len(logins) < COUNTS["LOGIN_EVENTS"]:
        customer = d.int(1, COUNTS["CUSTOMERS"])
        logins.append((customer, _ts(d), home[customer] if d.chance(0.97) else d.pick(CITIES)))
    for i, (customer, ts, city) in enumerate(sorted(logins, key=lambda row: (row[1], row[0])), start=1):
        la, lo = _near(d, city[2], city[3], 0.3)
        out["LOGIN_EVENTS"].append((i, customer, ts, city[1], la, lo, f"{customer * 7919 % 65536:04x}"
                                    f"{d.int(0, 3):02x}", 0 if d.chance(0.04) else 1))

    out["KYC_DOCUMENTS"] = []
    for i in range(1, COUNTS["KYC_DOCUMENTS"] + 1):
        customer = i if i <= COUNTS["CUSTOMERS"] else d.int(1, COUNTS["CUSTOMERS"])
        if kinds[customer] == "RETAIL":
            doc_type = d.pick(("PASSPORT", "NATIONAL_ID")) if i <= COUNTS["CUSTOMERS"] else "PROOF_OF_ADDRESS"
        else:
            doc_type = "ARTICLES_OF_INC" if i <= COUNTS["CUSTOMERS"] else "UBO_DECLARATION"
        issued = dt.date(2015 + d.int(0, 11), d.int(1, 12), d.int(1, 28))
        expires = None if doc_type == "ARTICLES_OF_INC" else issued.replace(
            year=issued.year + (1 if doc_type in ("PROOF_OF_ADDRESS", "UBO_DECLARATION") else 10))
        pending = d.chance(0.05)
        status = "PENDING_REVIEW" if pending else "EXPIRED" if expires and expires < AS_OF else "VALID"
        out["KYC_DOCUMENTS"].append((i, customer, doc_type, issued, expires,
                                     None if pending else issued + dt.timedelta(days=d.int(1, 20)), status))

    out["FX_RATES"] = []
    days, day = [], START.date()
    while len(days) < COUNTS["FX_RATES"] // len(CURRENCIES):
        if day.weekday() < 5:
            days.append(day)
        day += dt.timedelta(days=1)
    rates = dict(FX_START)
    for day in days:
        for currency in CURRENCIES:
            rates[currency] *= 1 + (d.unit() - 0.5) * 0.01
            out["FX_RATES"].append((day, currency, Decimal(f"{rates[currency]:.8f}")))
    return out


def _canonical(value):
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def digest(rows: dict[str, list[tuple]]) -> str:
    """sha256 of the rows in a canonical JSON form (table order, then row order)."""
    h = hashlib.sha256()
    for table in COUNTS:
        h.update(table.encode())
        for row in rows[table]:
            h.update(json.dumps([_canonical(v) for v in row], separators=(",", ":")).encode())
    return h.hexdigest()


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


class FinanceDataError(RuntimeError):
    """The generated FINANCE rows differ from the digest pinned in MANIFEST.json."""


def verify(rows: dict[str, list[tuple]]) -> None:
    pinned = manifest()
    counts = {t: len(r) for t, r in rows.items()}
    if counts != pinned["counts"] or digest(rows) != pinned["sha256"]:
        raise FinanceDataError(
            "the FINANCE generator produced other rows than MANIFEST.json pins (generator or Python changed?). "
            "If the change is intended, re-pin with: python -m workshop.data.finance --write")


def table_name(logical: str) -> str:
    return TABLE_PREFIX + logical


assert tuple(t.name for t in FINANCE_TABLES) == tuple(table_name(t) for t in COUNTS)
