import Foundation

/// Writes all `count` bytes at `bytes` to the open file `descriptor`, going on after a partial
/// write or an interrupted one (`EINTR`), as `write(2)` may stop short at any point.
///
/// - Throws: ``TransferFileError`` naming `path` with the system's reason (`ENOSPC` for a full
///   disk, say).
package func writeFully(_ bytes: UnsafeRawPointer, count: Int, to descriptor: Int32, path: String) throws(TransferFileError) {
    var written = 0
    while written < count {
        let result = Foundation.write(descriptor, bytes + written, count - written)
        if result < 0 {
            if errno == EINTR { continue }
            throw TransferFileError(path: path, errno: errno)
        }
        written += result
    }
}
