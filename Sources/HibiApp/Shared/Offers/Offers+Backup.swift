import Foundation
import SQLKit

// What the other features offer Backup, declared for it; the owner conforms in its `<Name>Offers.swift` and
// `Features.init` (or `hibi restore`, which builds no features) hands it over.

/// The key the visits log signs its chain with, named in a backup's manifest so a restore can tell whether the
/// signatures it brings back still verify. Declared for Backup (the manifest, the restore's key check); Visits'
/// `VisitsSigningKey` conforms. Both read what is there and never make a key.
public protocol BackupSigningKey: Sendable {
    /// The public key (base64) the database `sql` holds, sealed by `box`; nil when none was made yet.
    func storedPublicKey(_ sql: any SQLDatabase, box: SealedBoxService) async throws -> String?
    /// The public key (base64) of a key file an older version left in `dataDirectory`; nil when there is none.
    func legacyFilePublicKey(dataDirectory: String) throws -> String?
}
