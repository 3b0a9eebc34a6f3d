@_exported import SelfDBStore
