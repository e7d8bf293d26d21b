"""The FINANCE demo schema of part 04: fifteen tables of a fictitious retail bank with an AML
(anti-money-laundering) function, documented in the data dictionary with COMMENT ON TABLE/COLUMN.

One schema, both engines: the embedded engine has a single schema (WORKSHOP) and the set-up runs as
one user on Oracle too, so the logical schema FINANCE is the table-name prefix `FINANCE_`
(FINANCE_LOANS is the LOANS table of FINANCE). Facts about it name the logical schema:
`FINANCE.LOANS.RATE_BP` (see workshop.knowledge.scan).

Two columns are deliberately surprising, the facts a senior engineer remembers and a language model
guesses wrong: FINANCE_TRANSACTIONS.AMOUNT_CENTS (integer cents, not currency units) and
FINANCE_LOANS.RATE_BP (basis points, not a percentage).
"""
from __future__ import annotations

from workshop.schema import Column, Table

#: The logical schema name and the table-name prefix that stands for it in the one real schema.
SCHEMA_NAME = "FINANCE"
TABLE_PREFIX = "FINANCE_"

_LATLON = ("Latitude in decimal degrees (WGS 84); with LONGITUDE the location. Plain NUMBER columns on both "
           "engines; on Oracle an SDO_GEOMETRY point can be derived from them (optional).")
_LONG = "Longitude in decimal degrees (WGS 84); see LATITUDE."


def _t(name: str, comment: str, columns: tuple[Column, ...], constraints: tuple[str, ...] = ()) -> Table:
    return Table(TABLE_PREFIX + name, comment, columns, constraints)


def _pk(table: str, *columns: str) -> str:
    return f"CONSTRAINT {TABLE_PREFIX.lower()}{table.lower()}_pk PRIMARY KEY ({', '.join(columns)})"


def _fk(table: str, column: str, parent: str, parent_column: str) -> str:
    return (f"CONSTRAINT {TABLE_PREFIX.lower()}{table.lower()}_{column.lower()}_fk FOREIGN KEY ({column}) "
            f"REFERENCES {TABLE_PREFIX.lower()}{parent.lower()} ({parent_column})")


BRANCHES = _t("BRANCHES", "Bank branches. Location as LATITUDE/LONGITUDE numbers (an SDO_GEOMETRY point is "
              "optional on Oracle); customers have a home branch.", (
    Column("branch_id", "NUMBER(6)", "Branch identifier."),
    Column("name", "VARCHAR2(100)", "Branch name, e.g. 'Lisbon Baixa'.", "NOT NULL"),
    Column("city", "VARCHAR2(60)", "City the branch is in.", "NOT NULL"),
    Column("country", "VARCHAR2(2)", "ISO 3166-1 alpha-2 country code.", "NOT NULL"),
    Column("latitude", "NUMBER(9,6)", _LATLON, "NOT NULL"),
    Column("longitude", "NUMBER(9,6)", _LONG, "NOT NULL"),
    Column("opened_on", "DATE", "Date the branch opened."),
), (_pk("BRANCHES", "branch_id"),))

MERCHANTS = _t("MERCHANTS", "Merchants where card transactions happen, with their merchant category code and "
               "location (LATITUDE/LONGITUDE).", (
    Column("merchant_id", "NUMBER(6)", "Merchant identifier."),
    Column("name", "VARCHAR2(100)", "Trading name of the merchant (fictitious).", "NOT NULL"),
    Column("mcc", "VARCHAR2(4)", "ISO 18245 merchant category code, e.g. 5411 grocery stores, 6051 crypto and "
           "money orders.", "NOT NULL"),
    Column("category", "VARCHAR2(40)", "Readable category of the MCC.", "NOT NULL"),
    Column("city", "VARCHAR2(60)", "City of the merchant.", "NOT NULL"),
    Column("country", "VARCHAR2(2)", "ISO 3166-1 alpha-2 country code.", "NOT NULL"),
    Column("latitude", "NUMBER(9,6)", _LATLON, "NOT NULL"),
    Column("longitude", "NUMBER(9,6)", _LONG, "NOT NULL"),
    Column("high_risk", "NUMBER(1)", "1 when the MCC is on the AML high-risk list (money services, crypto, "
           "gambling, jewellery), else 0.", "NOT NULL"),
), (_pk("MERCHANTS", "merchant_id"),))

CUSTOMERS = _t("CUSTOMERS", "Bank customers: individuals (RETAIL) and businesses (SME, CORP), each with an AML "
               "risk rating and a home branch.", (
    Column("customer_id", "NUMBER(8)", "Customer identifier."),
    Column("full_name", "VARCHAR2(120)", "Name of the person or the registered business name (fictitious).",
           "NOT NULL"),
    Column("customer_type", "VARCHAR2(6)", "RETAIL (a person), SME (small business) or CORP (corporation).",
           "NOT NULL"),
    Column("country", "VARCHAR2(2)", "Country of residence or incorporation (ISO 3166-1 alpha-2).", "NOT NULL"),
    Column("date_of_birth", "DATE", "Date of birth; NULL for SME and CORP customers."),
    Column("onboarded_on", "DATE", "Date the relationship started (customer due diligence completed).",
           "NOT NULL"),
    Column("risk_rating", "NUMBER(3)", "AML customer risk rating from 1 (lowest) to 100 (highest); 70 and above "
           "requires enhanced due diligence.",
           "NOT NULL CONSTRAINT finance_customers_risk_ck CHECK (risk_rating BETWEEN 1 AND 100)"),
    Column("pep_flag", "NUMBER(1)", "1 when the customer is a politically exposed person, else 0.", "NOT NULL"),
    Column("home_branch_id", "NUMBER(6)", "The customer's home branch (FINANCE_BRANCHES.BRANCH_ID).", "NOT NULL"),
), (_pk("CUSTOMERS", "customer_id"), _fk("CUSTOMERS", "home_branch_id", "BRANCHES", "branch_id")))

ACCOUNTS = _t("ACCOUNTS", "Deposit and credit accounts: checking, savings, money-market and credit-line.", (
    Column("account_id", "NUMBER(8)", "Account identifier."),
    Column("customer_id", "NUMBER(8)", "Account holder (FINANCE_CUSTOMERS.CUSTOMER_ID).", "NOT NULL"),
    Column("account_type", "VARCHAR2(12)", "CHECKING, SAVINGS, MONEY_MARKET or CREDIT_LINE.", "NOT NULL"),
    Column("currency", "VARCHAR2(3)", "ISO 4217 currency of the account.", "NOT NULL"),
    Column("opened_on", "DATE", "Date the account was opened.", "NOT NULL"),
    Column("status", "VARCHAR2(8)", "OPEN, FROZEN (blocked by compliance) or CLOSED.", "NOT NULL"),
    Column("current_balance", "NUMBER(14,2)", "Ledger balance in the account currency (major units, two "
           "decimals).", "NOT NULL"),
), (_pk("ACCOUNTS", "account_id"), _fk("ACCOUNTS", "customer_id", "CUSTOMERS", "customer_id")))

CARDS = _t("CARDS", "Payment cards issued on accounts: debit, credit and prepaid.", (
    Column("card_id", "NUMBER(8)", "Card identifier."),
    Column("account_id", "NUMBER(8)", "Account the card draws on (FINANCE_ACCOUNTS.ACCOUNT_ID).", "NOT NULL"),
    Column("card_type", "VARCHAR2(8)", "DEBIT, CREDIT or PREPAID.", "NOT NULL"),
    Column("pan_last4", "VARCHAR2(4)", "Last four digits of the card number; the full PAN is never stored.",
           "NOT NULL"),
    Column("issued_on", "DATE", "Issue date.", "NOT NULL"),
    Column("expires_on", "DATE", "Expiry date.", "NOT NULL"),
    Column("status", "VARCHAR2(8)", "ACTIVE, BLOCKED or EXPIRED.", "NOT NULL"),
), (_pk("CARDS", "card_id"), _fk("CARDS", "account_id", "ACCOUNTS", "account_id")))

TRANSACTIONS = _t("TRANSACTIONS", "Card and account transactions (six months), including seeded AML patterns: "
                  "structuring below the cash reporting threshold, rapid in-and-out movement and round-amount "
                  "wires.", (
    Column("txn_id", "NUMBER(10)", "Transaction identifier."),
    Column("account_id", "NUMBER(8)", "Account booked (FINANCE_ACCOUNTS.ACCOUNT_ID).", "NOT NULL"),
    Column("card_id", "NUMBER(8)", "Card used (FINANCE_CARDS.CARD_ID); NULL unless CHANNEL is CARD."),
    Column("merchant_id", "NUMBER(6)", "Merchant (FINANCE_MERCHANTS.MERCHANT_ID); NULL unless CHANNEL is CARD."),
    Column("txn_ts", "TIMESTAMP", "When the transaction was booked (bank time, UTC).", "NOT NULL"),
    Column("amount_cents", "NUMBER(14)", "Stores the amount of every transaction as an integer number of cents "
           "(1250 means 12.50 of CURRENCY); always positive, DIRECTION gives the sign.", "NOT NULL"),
    Column("currency", "VARCHAR2(3)", "ISO 4217 currency of AMOUNT_CENTS.", "NOT NULL"),
    Column("channel", "VARCHAR2(8)", "Payment channel: CARD, CASH (branch or ATM), ACH, WIRE or TRANSFER between own accounts.",
           "NOT NULL"),
    Column("direction", "VARCHAR2(6)", "DEBIT (money out of the account) or CREDIT (money in).", "NOT NULL"),
    Column("counterparty", "VARCHAR2(120)", "Name of the other party for ACH, WIRE and TRANSFER, else NULL."),
    Column("aml_pattern", "VARCHAR2(20)", "Teaching label of the seeded pattern (STRUCTURING, RAPID_MOVEMENT, "
           "ROUND_AMOUNT) or NULL; a real bank has no such column, its monitoring rules must find them."),
), (_pk("TRANSACTIONS", "txn_id"), _fk("TRANSACTIONS", "account_id", "ACCOUNTS", "account_id")))

LOANS = _t("LOANS", "Loans to customers: mortgages, auto, personal and SME term loans.", (
    Column("loan_id", "NUMBER(8)", "Loan identifier."),
    Column("customer_id", "NUMBER(8)", "Borrower (FINANCE_CUSTOMERS.CUSTOMER_ID).", "NOT NULL"),
    Column("product", "VARCHAR2(10)", "MORTGAGE, AUTO, PERSONAL or SME_TERM.", "NOT NULL"),
    Column("principal", "NUMBER(14,2)", "Amount lent, in USD (major units).", "NOT NULL"),
    Column("rate_bp", "NUMBER(5)", "Annual interest rate in BASIS POINTS, not percent: 1 bp = 0.01 %, so 675 "
           "means 6.75 % a year. Divide by 10000 for a fraction.", "NOT NULL"),
    Column("term_months", "NUMBER(4)", "Term of the loan in months.", "NOT NULL"),
    Column("originated_on", "DATE", "Date the loan was paid out.", "NOT NULL"),
    Column("status", "VARCHAR2(10)", "CURRENT, LATE, DEFAULTED or REPAID.", "NOT NULL"),
), (_pk("LOANS", "loan_id"), _fk("LOANS", "customer_id", "CUSTOMERS", "customer_id")))

SAR_REPORTS = _t("SAR_REPORTS", "Suspicious Activity Reports filed with the financial intelligence unit. "
                 "Compliance-only: never disclose a SAR to the customer (tipping-off).", (
    Column("sar_id", "NUMBER(6)", "SAR identifier."),
    Column("customer_id", "NUMBER(8)", "Subject of the report (FINANCE_CUSTOMERS.CUSTOMER_ID).", "NOT NULL"),
    Column("typology", "VARCHAR2(20)", "STRUCTURING, RAPID_MOVEMENT, SANCTIONS, ROUND_AMOUNT or FRAUD.", "NOT NULL"),
    Column("activity_start", "DATE", "First day of the suspicious activity.", "NOT NULL"),
    Column("activity_end", "DATE", "Last day of the suspicious activity.", "NOT NULL"),
    Column("total_usd", "NUMBER(14,2)", "Total amount involved, in USD (major units).", "NOT NULL"),
    Column("filed_on", "DATE", "Filing date; NULL while the report is a DRAFT."),
    Column("status", "VARCHAR2(8)", "DRAFT, FILED or CLOSED.", "NOT NULL"),
), (_pk("SAR_REPORTS", "sar_id"), _fk("SAR_REPORTS", "customer_id", "CUSTOMERS", "customer_id")))

SANCTIONS_SCREENINGS = _t("SANCTIONS_SCREENINGS", "Watch-list name matches from customer screening (OFAC, EU, UN, "
                          "PEP and adverse-media lists) and the analyst's disposition.", (
    Column("screening_id", "NUMBER(8)", "Screening hit identifier."),
    Column("customer_id", "NUMBER(8)", "Customer screened (FINANCE_CUSTOMERS.CUSTOMER_ID).", "NOT NULL"),
    Column("list_name", "VARCHAR2(14)", "OFAC, EU, UN, PEP or ADVERSE_MEDIA.", "NOT NULL"),
    Column("matched_name", "VARCHAR2(120)", "The list entry the customer's name matched (fictitious).", "NOT NULL"),
    Column("match_score", "NUMBER(5,2)", "Name-matching score from 0 to 100; hits of 85 and above are reviewed.",
           "NOT NULL"),
    Column("screened_at", "TIMESTAMP", "When the screening ran.", "NOT NULL"),
    Column("disposition", "VARCHAR2(14)", "PENDING, FALSE_POSITIVE, ESCALATED or TRUE_MATCH.", "NOT NULL"),
), (_pk("SANCTIONS_SCREENINGS", "screening_id"),
    _fk("SANCTIONS_SCREENINGS", "customer_id", "CUSTOMERS", "customer_id")))

BENEFICIAL_OWNERS = _t("BENEFICIAL_OWNERS", "Who ultimately owns each SME and CORP customer, one row per owner "
                       "and ownership layer.", (
    Column("owner_id", "NUMBER(8)", "Row identifier."),
    Column("customer_id", "NUMBER(8)", "The business customer owned (FINANCE_CUSTOMERS.CUSTOMER_ID).", "NOT NULL"),
    Column("owner_name", "VARCHAR2(120)", "Name of the owning person or holding company (fictitious).", "NOT NULL"),
    Column("ownership_pct", "NUMBER(5,2)", "Share owned, in percent (0-100), through this layer.", "NOT NULL"),
    Column("layer", "NUMBER(2)", "1 = owns the customer directly, 2 = owns a direct owner, and so on.", "NOT NULL"),
    Column("country", "VARCHAR2(2)", "Residence or incorporation of the owner (ISO 3166-1 alpha-2).", "NOT NULL"),
    Column("is_pep", "NUMBER(1)", "1 when the owner is a politically exposed person, else 0.", "NOT NULL"),
), (_pk("BENEFICIAL_OWNERS", "owner_id"), _fk("BENEFICIAL_OWNERS", "customer_id", "CUSTOMERS", "customer_id")))

WIRE_MESSAGES = _t("WIRE_MESSAGES", "SWIFT-style payment messages behind WIRE transactions: BICs, beneficiary "
                   "and purpose code.", (
    Column("wire_id", "NUMBER(8)", "Message identifier."),
    Column("txn_id", "NUMBER(10)", "The WIRE transaction (FINANCE_TRANSACTIONS.TXN_ID).", "NOT NULL"),
    Column("message_type", "VARCHAR2(5)", "MT103 (customer transfer) or MT202 (bank-to-bank).", "NOT NULL"),
    Column("sender_bic", "VARCHAR2(11)", "BIC of the sending bank (fictitious).", "NOT NULL"),
    Column("receiver_bic", "VARCHAR2(11)", "BIC of the receiving bank (fictitious).", "NOT NULL"),
    Column("beneficiary_name", "VARCHAR2(120)", "Name of the beneficiary.", "NOT NULL"),
    Column("beneficiary_country", "VARCHAR2(2)", "Country of the beneficiary's bank (ISO 3166-1 alpha-2).",
           "NOT NULL"),
    Column("purpose_code", "VARCHAR2(4)", "ISO 20022 purpose code, e.g. SALA salary, SUPP supplier, GDDS goods.",
           "NOT NULL"),
), (_pk("WIRE_MESSAGES", "wire_id"), _fk("WIRE_MESSAGES", "txn_id", "TRANSACTIONS", "txn_id")))

LOGIN_EVENTS = _t("LOGIN_EVENTS", "Digital-banking logins with their location (LATITUDE/LONGITUDE): evidence for "
                  "impossible travel (two logins further apart than a plane can fly in the time between them).", (
    Column("login_id", "NUMBER(10)", "Login identifier."),
    Column("customer_id", "NUMBER(8)", "Customer who logged in (FINANCE_CUSTOMERS.CUSTOMER_ID).", "NOT NULL"),
    Column("login_ts", "TIMESTAMP", "When the login happened (UTC).", "NOT NULL"),
    Column("ip_country", "VARCHAR2(2)", "Country of the IP address (ISO 3166-1 alpha-2).", "NOT NULL"),
    Column("latitude", "NUMBER(9,6)", _LATLON, "NOT NULL"),
    Column("longitude", "NUMBER(9,6)", _LONG, "NOT NULL"),
    Column("device_id", "VARCHAR2(16)", "Fingerprint of the device.", "NOT NULL"),
    Column("success", "NUMBER(1)", "1 for a successful login, 0 for a failed one.", "NOT NULL"),
), (_pk("LOGIN_EVENTS", "login_id"), _fk("LOGIN_EVENTS", "customer_id", "CUSTOMERS", "customer_id")))

KYC_DOCUMENTS = _t("KYC_DOCUMENTS", "Know-your-customer paperwork with expiry dates; expired documents are the "
                   "remediation backlog.", (
    Column("doc_id", "NUMBER(8)", "Document identifier."),
    Column("customer_id", "NUMBER(8)", "Customer the document belongs to (FINANCE_CUSTOMERS.CUSTOMER_ID).",
           "NOT NULL"),
    Column("doc_type", "VARCHAR2(18)", "PASSPORT, NATIONAL_ID, PROOF_OF_ADDRESS, ARTICLES_OF_INC or "
           "UBO_DECLARATION.", "NOT NULL"),
    Column("issued_on", "DATE", "Issue date of the document.", "NOT NULL"),
    Column("expires_on", "DATE", "Expiry date; NULL for documents that do not expire."),
    Column("verified_on", "DATE", "When an analyst verified it; NULL while pending."),
    Column("status", "VARCHAR2(14)", "VALID, EXPIRED or PENDING_REVIEW.", "NOT NULL"),
), (_pk("KYC_DOCUMENTS", "doc_id"), _fk("KYC_DOCUMENTS", "customer_id", "CUSTOMERS", "customer_id")))

CASE_NOTES = _t("CASE_NOTES", "Investigator narrative behind the SARs: what was looked at and why it was "
                "suspicious. Compliance-only.", (
    Column("note_id", "NUMBER(8)", "Note identifier."),
    Column("sar_id", "NUMBER(6)", "The report the note belongs to (FINANCE_SAR_REPORTS.SAR_ID).", "NOT NULL"),
    Column("author", "VARCHAR2(60)", "Investigator who wrote the note (fictitious).", "NOT NULL"),
    Column("written_at", "TIMESTAMP", "When the note was written.", "NOT NULL"),
    Column("note", "VARCHAR2(2000)", "The note text.", "NOT NULL"),
), (_pk("CASE_NOTES", "note_id"), _fk("CASE_NOTES", "sar_id", "SAR_REPORTS", "sar_id")))

FX_RATES = _t("FX_RATES", "Daily reference exchange rates against USD, one row per currency and day.", (
    Column("rate_date", "DATE", "Business day of the rate.", "NOT NULL"),
    Column("currency", "VARCHAR2(3)", "ISO 4217 currency code.", "NOT NULL"),
    Column("usd_per_unit", "NUMBER(14,8)", "US dollars for one unit of CURRENCY on RATE_DATE.", "NOT NULL"),
), (_pk("FX_RATES", "rate_date", "currency"),))

#: Creation order (parents before children); dropped in reverse.
FINANCE_TABLES: tuple[Table, ...] = (BRANCHES, MERCHANTS, CUSTOMERS, ACCOUNTS, CARDS, TRANSACTIONS, LOANS,
                                     SAR_REPORTS, SANCTIONS_SCREENINGS, BENEFICIAL_OWNERS, WIRE_MESSAGES,
                                     LOGIN_EVENTS, KYC_DOCUMENTS, CASE_NOTES, FX_RATES)

#: The two columns the lesson is about (table without prefix, column).
SURPRISING_COLUMNS = (("TRANSACTIONS", "AMOUNT_CENTS"), ("LOANS", "RATE_BP"))


def logical_name(table_name: str) -> str:
    """FINANCE_LOANS -> LOANS (the name inside the logical FINANCE schema)."""
    name = table_name.upper()
    if not name.startswith(TABLE_PREFIX):
        raise ValueError(f"{table_name} is not a FINANCE table (no {TABLE_PREFIX} prefix)")
    return name[len(TABLE_PREFIX):]
