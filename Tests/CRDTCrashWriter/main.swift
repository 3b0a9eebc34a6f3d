import CRDTSQLite
