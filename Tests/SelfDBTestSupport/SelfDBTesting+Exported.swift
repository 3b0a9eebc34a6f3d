// The fault proxy and the seeded generator moved to the `SelfDBTesting` product, where apps
// can use them too; every test that imports the test support keeps seeing them.
@_exported import SelfDBTesting
