/**
 * HdrHistogram 2.2.2, repackaged unchanged with this descriptor: its own jar has neither a module
 * descriptor nor an Automatic-Module-Name, so the module system would name it after the file
 * ("HdrHistogram"). The classes come from org.hdrhistogram:HdrHistogram at build time
 * (maven-dependency-plugin unpacks them before this file is compiled against them). It needs only
 * java.base: it looks for javax.xml.bind reflectively and falls back to java.util.Base64.
 */
module org.hdrhistogram {
    exports org.HdrHistogram;
    exports org.HdrHistogram.packedarray;
}
