package org.lockstep.spi.device;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * A device could not be opened or used: missing or unmappable path, too small, no room on the
 * file system, an access outside its bounds, or an image that is foreign, corrupt or of another
 * layout version. Error class {@link ErrorClass#DEVICE} unless stated otherwise.
 */
public class DeviceException extends LockstepException {
    private static final long serialVersionUID = 1L;

    public DeviceException(String message) {
        super(ErrorClass.DEVICE, message);
    }

    public DeviceException(String message, Throwable cause) {
        super(ErrorClass.DEVICE, message, cause);
    }

    public DeviceException(ErrorClass errorClass, String message) {
        super(errorClass, message);
    }
}
