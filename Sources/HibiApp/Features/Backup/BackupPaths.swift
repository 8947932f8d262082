/// Backup's page addresses: its administration page and the form that starts a backup now.
public enum BackupPaths {
    public static let admin = "/admin/backups"
    public static let backUpNow = admin + "/now"
}
