"""The bank's AML policy notes (authored for the workshop; the bank and its rules are fictitious, modelled
on common anti-money-laundering practice). Each note is a `policy` fact with subject `AML.<TOPIC>`.
"""
from __future__ import annotations

from .facts import Fact

#: (topic, note). Thresholds are in currency units (USD); the tables store cents and basis points.
AML_POLICY_NOTES: tuple[tuple[str, str], ...] = (
    ("CASH_REPORTING_THRESHOLD", "Cash deposits or withdrawals above USD 10,000 in one business day, alone or "
     "added up across accounts of one customer, require a currency transaction report. Compare with "
     "FINANCE_TRANSACTIONS.AMOUNT_CENTS divided by 100."),
    ("STRUCTURING", "Structuring is splitting cash into several deposits just below the USD 10,000 reporting "
     "threshold to avoid a report. Three or more cash credits between USD 9,000 and 10,000 within ten days "
     "raise a structuring alert, even when each one alone is below the threshold."),
    ("RAPID_MOVEMENT", "Funds that arrive by wire and leave again within 48 hours for a similar amount, with no "
     "business reason on file, are rapid movement of funds, a layering typology. Review the wire messages of "
     "both legs."),
    ("ROUND_AMOUNT_WIRES", "Repeated round-amount wires (exact multiples of USD 10,000) to new beneficiaries "
     "in high-risk jurisdictions are a red flag and go to second-level review."),
    ("SAR_FILING_DEADLINE", "A Suspicious Activity Report must be filed within 30 calendar days of the date "
     "the suspicious activity was detected; a DRAFT older than 20 days is escalated to the MLRO."),
    ("TIPPING_OFF", "Never tell a customer, or anyone outside compliance, that a SAR was filed or is being "
     "considered. SAR_REPORTS and CASE_NOTES are compliance-only; agents must not quote them to customers."),
    ("SAR_CONTINUING_ACTIVITY", "When suspicious activity continues after a SAR was filed, review the customer "
     "again after 90 days and file a continuing-activity SAR if it has not stopped."),
    ("RISK_RATING", "Every customer has a risk rating from 1 to 100. Ratings of 70 and above are high risk and "
     "require enhanced due diligence; 40 to 69 is medium; below 40 is low."),
    ("ENHANCED_DUE_DILIGENCE", "Enhanced due diligence means verifying source of wealth and source of funds, "
     "senior-management approval of the relationship and a review at least every 12 months."),
    ("PEP", "Politically exposed persons, their family and close associates are always high risk: EDD applies "
     "for the whole relationship and for 12 months after the person leaves office."),
    ("SANCTIONS_SCREENING", "Every customer, beneficial owner and wire beneficiary is screened against the "
     "OFAC, EU and UN sanctions lists at onboarding and daily afterwards. Hits with a match score of 85 or "
     "more are reviewed by an analyst before any payment is released."),
    ("SANCTIONS_TRUE_MATCH", "A confirmed sanctions match (disposition TRUE_MATCH) freezes the customer's "
     "accounts at once and is reported to the regulator within one business day. Do not return the funds."),
    ("FALSE_POSITIVE_DISPOSITION", "A screening hit may be closed as FALSE_POSITIVE only with a written reason "
     "that compares name, date of birth and country; the analyst's note is kept for five years."),
    ("ADVERSE_MEDIA", "Credible adverse-media hits about financial crime raise the customer's risk rating and "
     "trigger an event-driven review within 15 business days."),
    ("BENEFICIAL_OWNERSHIP", "For SME and CORP customers the bank identifies every natural person who owns 25 % "
     "or more, directly or through layers of companies, and verifies their identity. Multiply the ownership "
     "percentages along the layers to find indirect ownership."),
    ("NOMINEE_DIRECTORS", "Nominee directors or shareholders hide the real owner; ask for the UBO register "
     "extract and treat the customer as high risk until the beneficial owner is known."),
    ("KYC_REFRESH", "Identity documents must be valid. An expired passport or national id starts a remediation "
     "case: the customer has 60 days to provide a new document before the account is restricted."),
    ("KYC_REVIEW_CYCLE", "Customer due diligence is refreshed every 12 months for high-risk customers, every "
     "36 months for medium and every 60 months for low-risk customers."),
    ("PROOF_OF_ADDRESS", "A proof of address is accepted only when it is less than 12 months old: utility bill, "
     "bank statement or government letter."),
    ("IMPOSSIBLE_TRAVEL", "Two logins of one customer whose distance divided by the time between them exceeds "
     "900 km per hour are impossible travel: treat the session as account takeover and step up authentication."),
    ("HIGH_RISK_MCC", "Card spending at high-risk merchant categories (money transfer 4829, crypto and money "
     "orders 6051, gambling 7995, jewellery 5944) counts double in transaction monitoring."),
    ("HIGH_RISK_JURISDICTIONS", "Wires to or from high-risk jurisdictions need a purpose code that matches the "
     "customer's declared business; mismatches are held for review."),
    ("WIRE_PURPOSE_CODES", "Every outgoing wire carries an ISO 20022 purpose code (for example SALA salary, SUPP "
     "supplier payment, GDDS goods). A code that does not fit the customer's profile is a red flag."),
    ("TRAVEL_RULE", "Wires must carry originator and beneficiary name, account and address (the travel rule); "
     "incomplete MT103 messages are returned to the sender."),
    ("FX_CONVERSION", "Thresholds are in USD. Convert other currencies with FINANCE_FX_RATES.USD_PER_UNIT of the "
     "booking day before comparing an amount with a threshold."),
    ("LOAN_PRICING", "Loan rates are priced in basis points: FINANCE_LOANS.RATE_BP of 675 is 6.75 % a year. A rate "
     "more than 300 bp below the product's floor needs a pricing exception on file."),
    ("LOAN_EARLY_REPAYMENT", "A loan repaid in full within six months of origination from an unexplained source "
     "of funds is a money-laundering red flag (loan-back scheme)."),
    ("ACCOUNT_FREEZE", "Compliance may freeze an account (status FROZEN) during an investigation; card and wire "
     "activity is blocked, incoming credits are still booked."),
    ("RECORD_RETENTION", "Transaction records, KYC documents and case notes are kept for at least five years "
     "after the relationship ends."),
    ("ALERT_TRIAGE", "Monitoring alerts are triaged within five business days: close with a reason, or open a "
     "case that an investigator documents in CASE_NOTES."),
    ("DATA_MINIMISATION", "Agents answer questions with aggregates where possible; never show a full card "
     "number (only PAN_LAST4 is stored) or a customer's date of birth in a chat."),
    ("EXIT_RELATIONSHIP", "After two SARs on one customer within 12 months the MLRO decides whether to exit the "
     "relationship; the exit letter never mentions the SARs."),
)


def policy_facts() -> list[Fact]:
    """The policy notes as facts (kind `policy`, subject `AML.<TOPIC>`)."""
    return [Fact(kind="policy", subject=f"AML.{topic}", body=f"AML.{topic}: {note}", source="aml_policy",
                 metadata={"topic": topic.lower()}) for topic, note in AML_POLICY_NOTES]
