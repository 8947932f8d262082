import Foundation

/// What a whole-instance backup holds, described by `manifest.json` inside the archive. Engine-neutral:
/// the same manifest and table data come out of SQLite and PostgreSQL, so either restores into either.
///
/// Format 2 (written since) keeps every table in one member, `tables.sqlite`: an SQLite 3 database with
/// this Hibi's tables at the backup's schema version, an open, typed, self-describing format that any
/// SQLite reads. From SQLite it is a page-level copy (`VACUUM INTO`) and goes back with SQLite's record
/// transfer, so backup and restore run near the speed of copying the file (rows written out as text and
/// parsed back were 6 to 9 times slower than `sqlite3 .backup` plus `tar`). From and into PostgreSQL the
/// rows are copied table by table. Format 1 (one JSON-lines member per table) is still restored.
public struct BackupManifest: Codable, Sendable, Equatable {
    public static let formatName = "hibi-backup"
    public static let currentFormatVersion = 2
    public static let memberName = "manifest.json"
    /// The manifest's HMAC-SHA256 (hex) under a key derived from the data key (`macPurpose`): since the manifest
    /// holds every member's SHA-256, it vouches for the whole archive. Written since format 2 archives carry it.
    public static let macMemberName = "manifest.mac"
    public static let macPurpose = "backup-manifest"

    public var format: String
    public var formatVersion: Int
    public var hibiVersion: String
    public var createdAt: Date
    /// The highest migration applied, and every one applied (features may land out of order, so gaps are possible).
    public var schemaVersion: Int
    public var migrations: [Int]
    /// The data key's check value (a known text sealed under the key), never the key: it tells at restore
    /// time whether the target's key opens this backup's sealed text and photos.
    public var dataKeyCheck: String?
    /// The public half of the visits signing key (the private half is a secret and stays out of backups):
    /// a restore checks the target's signing key against it so the visit chains verify afterwards.
    public var visitsSigningPublicKey: String?
    public var tables: [Table]
    /// Format 2: the member holding every table (`tables.sqlite`), checked as a whole.
    public var database: File?
    public var files: [File]

    public struct Column: Codable, Sendable, Equatable {
        public var name: String
        public var type: BackupColumnType
    }

    public struct Table: Codable, Sendable, Equatable {
        public var name: String
        /// Format 1: the table's own JSON-lines member; format 2: the shared `tables.sqlite`.
        public var member: String
        public var columns: [Column]
        public var rows: Int
        /// Format 1 only (a member per table); format 2 checks the shared member through `database`.
        public var bytes: Int64?
        public var sha256: String?
    }

    public struct File: Codable, Sendable, Equatable {
        public var member: String
        public var bytes: Int64
        public var sha256: String
    }
}

/// Column types as a backup records them; each engine's declared types map onto these.
public enum BackupColumnType: String, Codable, Sendable {
    case text, integer, real, boolean, blob
}

/// One value of a row, typed by its column.
public enum BackupValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case text(String)
    case blob(Data)
}

/// Everything that stops a backup, a verification or a restore. Each names the member and the reason.
public enum BackupError: Error, Equatable, CustomStringConvertible {
    case notABackup(String)
    case damaged(member: String, reason: String)
    case newerSchema(backup: Int, binary: Int)
    case newerFormat(Int)
    case wrongDataKey
    case noDataKey
    case signingKeyMismatch
    case targetNotEmpty(table: String)
    case tableMismatch(table: String, reason: String)
    case unsupportedValue(table: String, column: String)
    case io(String)
    /// A member the writer never makes (a top-level file, a name outside the media folders, a link).
    case outsideLayout(member: String, reason: String)
    /// The manifest's MAC does not match under the key that made the archive: edited without the key.
    case tampered
    /// The archive's origin cannot be checked; restored only when the operator says so.
    case unverified(UnverifiedReason, hibiVersion: String)

    public enum UnverifiedReason: String, Sendable, Equatable {
        /// No `manifest.mac`: made by a Hibi from before backups were signed (or the member was removed).
        case unsigned
        /// A MAC this target's data key does not confirm: another instance's key.
        case otherKey
        /// The target has no data key to check a MAC with.
        case noKey
    }

    /// What a restore of an unverified archive cannot check, said before it goes ahead.
    public static func unverifiedWarning(_ reason: UnverifiedReason, hibiVersion: String) -> Text {
        let why: Text = switch reason {
        case .unsigned:
            Text(en: "it carries no \(BackupManifest.macMemberName) (its manifest says Hibi \(hibiVersion); older versions did not sign backups, or the member was removed)",
                 ja: "\(BackupManifest.macMemberName) がありません(マニフェストの記載は Hibi \(hibiVersion)。古い版は署名しません。または取り除かれています)")
        case .otherKey:
            Text(en: "its signature was made with another data key (another instance's, or the archive was changed)",
                 ja: "署名が別のデータキーで作られています(別のインスタンスのもの、または書き換えられています)")
        case .noKey:
            Text(en: "this target has no data key to check its signature with", ja: "署名を確かめるデータキーがこの復元先にありません")
        }
        return Text(
            en: "this backup cannot be verified: \(why.en). Hibi cannot tell whether its tables (accounts, passwords, admin rights, tokens, diary and health rows) or its files were changed after it was written: the sizes and SHA-256 sums in its manifest only show that the members agree with a manifest anyone can rewrite",
            ja: "このバックアップは検証できません: \(why.ja)。テーブル(アカウント、パスワード、管理者権限、トークン、日記や健康の行)やファイルが書き出された後に変えられていないかを確かめられません。マニフェストのサイズと SHA-256 は、誰でも書き換えられるマニフェストとメンバーが一致することしか示しません")
    }

    public var text: Text {
        switch self {
        case let .notABackup(reason):
            Text(en: "not a Hibi backup: \(reason)", ja: "Hibi のバックアップではありません: \(reason)")
        case let .damaged(member, reason):
            Text(en: "the backup is damaged: \(member): \(reason)", ja: "バックアップが壊れています: \(member): \(reason)")
        case let .newerSchema(backup, binary):
            Text(en: "this backup is from a newer Hibi (schema version \(backup); this Hibi knows up to \(binary)); upgrade Hibi first",
                 ja: "このバックアップは新しい Hibi で作られています(スキーマ \(backup)、この Hibi は \(binary) まで)。先に Hibi を更新してください")
        case let .newerFormat(version):
            Text(en: "this backup uses format version \(version), newer than this Hibi reads", ja: "このバックアップの形式(バージョン \(version))はこの Hibi より新しいものです")
        case .wrongDataKey:
            Text(en: "this backup was sealed with another data key; restore with the data.key (or HIBI_MASTER_KEY) of the instance it came from",
                 ja: "このバックアップは別のデータキーで暗号化されています。元のインスタンスの data.key(または HIBI_MASTER_KEY)で復元してください")
        case .noDataKey:
            Text(en: "no data key: copy data.key from the original data directory or set HIBI_MASTER_KEY before restoring",
                 ja: "データキーがありません。元のデータディレクトリの data.key をコピーするか HIBI_MASTER_KEY を設定してから復元してください")
        case .signingKeyMismatch:
            Text(en: "the visits in this backup were signed with another key; copy visits-signing.key from the original data directory before restoring",
                 ja: "このバックアップの訪問記録は別の鍵で署名されています。元のデータディレクトリの visits-signing.key をコピーしてから復元してください")
        case let .targetNotEmpty(table):
            Text(en: "the target database is not empty (table \(table) has rows); restore into an empty database or pass --replace",
                 ja: "復元先のデータベースが空ではありません(テーブル \(table) に行があります)。空のデータベースに復元するか --replace を指定してください")
        case let .tableMismatch(table, reason):
            Text(en: "table \(table) does not match this Hibi's schema: \(reason)", ja: "テーブル \(table) がこの Hibi のスキーマと一致しません: \(reason)")
        case let .unsupportedValue(table, column):
            Text(en: "table \(table), column \(column): a value that a backup cannot carry (not a finite number)",
                 ja: "テーブル \(table) の列 \(column): バックアップに入れられない値です(有限の数ではありません)")
        case let .io(reason):
            Text(en: "cannot read or write a file: \(reason)", ja: "ファイルを読み書きできません: \(reason)")
        case let .outsideLayout(member, reason):
            Text(en: "the backup holds \(member), which Hibi never writes (\(reason)); nothing was restored",
                 ja: "バックアップに Hibi が書かないメンバー \(member) があります(\(reason))。何も復元していません")
        case .tampered:
            Text(en: "the backup was changed after it was written: its manifest's signature does not match under this instance's data key; nothing was restored",
                 ja: "バックアップは書き出された後に変更されています。マニフェストの署名がこのインスタンスのデータキーで一致しません。何も復元していません")
        case let .unverified(reason, version):
            Text(en: Self.unverifiedWarning(reason, hibiVersion: version).en + ". Restore it only if you trust where it came from, with --allow-unverified",
                 ja: Self.unverifiedWarning(reason, hibiVersion: version).ja + "。出どころを信頼できる場合に限り --allow-unverified を付けて復元してください")
        }
    }

    public var description: String { text.en }
}

/// Format 1's table rows, JSON lines: one JSON array per row, values in the manifest's column order,
/// blobs as base64 strings, reals in their shortest round-tripping form. Read back for old backups.
public enum BackupRowCodec {
    /// One line back into typed values; `nil` when the line does not fit the columns.
    public static func decode(_ line: Data, columns: [BackupManifest.Column]) -> [BackupValue]? {
        var values: [BackupValue] = []
        let ok = line.withUnsafeBytes { raw in
            BackupRowParser.parse(raw.bindMemory(to: UInt8.self), columns: columns, into: &values)
        }
        return ok ? values : nil
    }

}
