from ledger.hooks import run

run()
